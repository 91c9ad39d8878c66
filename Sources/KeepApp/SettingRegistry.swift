import KeepCore
import KeepPorts

/// Every setting `keep` has, with its default, its rule and where a screen shows it.
///
/// Each default satisfies its own validator (pinned over the whole registry). The one
/// secret, ``openaiApiKey``, has no value row: it lives in the keychain under
/// `openai`/`default`, and the settings file never holds it.
public enum SettingRegistry {
    /// The engines `keep` can answer with.
    public static let engineIds = ["echo", "remote"]

    public static let engineId = SettingDef(
        key: AppCore.engineKey, defaultValue: .string("echo"), label: "Engine",
        help: "Which engine answers: echo (offline, repeats you) or remote (an OpenAI-compatible server). "
            + "The engine you pick is remembered for the next launch.",
        section: "Engine", validator: .oneOf(engineIds))

    public static let baseUrl = SettingDef(
        key: "baseUrl", defaultValue: .string("http://127.0.0.1:8080/v1"), label: "Server URL",
        help: "Where the remote engine sends chat completions: the server's base URL, http or https.",
        section: "Engine", validator: .httpURL)

    public static let model = SettingDef(
        key: "model", defaultValue: .string("default"), label: "Model",
        help: "The model name the remote engine asks the server for.", section: "Engine", validator: .nonEmpty)

    public static let temperature = SettingDef(
        key: "temperature", defaultValue: .number(0.7), label: "Temperature",
        help: "How adventurous the remote engine's answers are, from 0 (plain) to 2 (wild).", section: "Engine",
        validator: .number(in: 0...2))

    public static let keySlot = SettingDef(
        key: "keySlot", defaultValue: .string(SecretSlot.openai.rawValue), label: "Key slot",
        help: "Which keychain slot holds the API key the remote engine sends.", section: "Keys",
        validator: .oneOf(SecretSlot.allCases.map(\.rawValue)))

    public static let keyAccount = SettingDef(
        key: "keyAccount", defaultValue: .string("default"), label: "Key account",
        help: "Which account within the key slot to use, for more than one key per provider.", section: "Keys",
        validator: .nonEmpty)

    public static let openaiApiKey = SettingDef(
        key: "openaiApiKey", defaultValue: .string(""), label: "OpenAI API key",
        help: "Sent to the remote engine. Kept in the keychain, never in the settings file, and never shown back.",
        section: "Keys", secretRef: SecretRef(.openai, account: "default"))

    public static let chatHistory = SettingDef(
        key: "chatHistory", defaultValue: .bool(true), label: "Question history",
        help: "Whether the interactive chat keeps the lines you type (file history in the data root, 0600) so "
            + "Up and Ctrl-R find them after a relaunch. false keeps none and removes the file.",
        section: "Chat")

    /// The whole registry, in display order.
    public static let defs: [SettingDef] = [
        engineId, baseUrl, model, temperature, keySlot, keyAccount, openaiApiKey, chatHistory,
    ]

    /// The keychain ref the remote engine's key is read from: the `keySlot` and
    /// `keyAccount` settings (by default `openai`/`default`, the ref of ``openaiApiKey``).
    ///
    /// Both settings were checked when they were loaded or set; a value that still does
    /// not name a slot is reported as ``SettingsError/refused(key:reason:)``, never replaced.
    public static func apiKeyRef(_ settings: SettingsStore) throws(SettingsError) -> SecretRef {
        let slotName = settings.value(keySlot.key)?.string ?? ""
        guard let slot = SecretSlot(rawValue: slotName) else {
            throw .refused(key: keySlot.key, reason: "\(keySlot.key) must be \(keySlot.rule)")
        }
        let account = settings.value(keyAccount.key)?.string ?? ""
        guard !account.isEmpty else {
            throw .refused(key: keyAccount.key, reason: "\(keyAccount.key) must be \(keyAccount.rule)")
        }
        return SecretRef(slot, account: account)
    }

    /// The API key the remote engine sends, or `nil` when none is stored or it is empty
    /// (so no `Authorization` header is built from it).
    ///
    /// Reads the ref ``apiKeyRef(_:)`` names through the whole ``SecretsPort``, which a
    /// settings screen never holds. Throws ``SettingsError/secrets(_:)`` when the keychain
    /// cannot be reached.
    public static func apiKeyFor(
        secrets: any SecretsPort, settings: SettingsStore
    ) async throws(SettingsError)
        -> String?
    {
        try await readSecret(secrets: secrets, ref: try apiKeyRef(settings))
    }
}
