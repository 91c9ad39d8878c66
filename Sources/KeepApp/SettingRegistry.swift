import Foundation
import KeepCore
import KeepEngines
import KeepPorts

/// Every setting `keep` has, with its default, its rule and where a screen shows it.
///
/// Each default satisfies its own validator (pinned over the whole registry). The one
/// secret, ``openaiApiKey``, has no value row: it lives in the keychain under
/// `openai`/`default`, and the settings file never holds it.
package enum SettingRegistry {
    /// The engine: its allowed values, default and help come from ``EngineCatalog``.
    package static let engineId = SettingDef(
        key: AppCore.engineKey, defaultValue: .string(EngineCatalog.defaultKind.id), label: "Engine",
        help: "Which engine answers: \(EngineCatalog.described). "
            + "The engine you pick is remembered for the next launch.",
        section: "Engine", validator: .oneOf(EngineCatalog.all.map(\EngineKind.id)))

    /// The server the remote engine asks: its base URL, http or https.
    package static let baseUrl = SettingDef(
        key: "baseUrl", defaultValue: .string("http://127.0.0.1:8080/v1"), label: "Server URL",
        help: "The server's base URL, http or https, as before servers: carried once into the server `default` "
            + "(keep servers), which the remote engine asks; change servers with keep servers add.",
        section: "Engine", validator: .httpURL)

    /// The model name the remote engine asks for.
    package static let model = SettingDef(
        key: "model", defaultValue: .string("default"), label: "Model",
        help: "The model asked, as before servers: carried once into the server `default` (keep servers add "
            + "--model), then unused.",
        section: "Engine", validator: .nonEmpty)

    /// The remote engine's temperature, 0 to 2.
    package static let temperature = SettingDef(
        key: "temperature", defaultValue: .number(0.7), label: "Temperature",
        help: "How adventurous the remote engine's answers are, from 0 (plain) to 2 (wild).", section: "Engine",
        validator: .number(in: 0...2))

    /// The system prompt for a chat with none of its own; empty sends none.
    package static let system = SettingDef(
        key: "system", defaultValue: .string(""), label: "System prompt",
        help: "Instructions sent ahead of every chat that has no system prompt of its own (`keep ask --system` "
            + "and /system give a chat its own). Empty sends none.",
        section: "Engine")

    /// The most tokens an answer may have; 0 leaves it to the server.
    package static let maxTokens = SettingDef(
        key: "maxTokens", defaultValue: .number(0), label: "Max tokens",
        help: "The most tokens the remote engine may answer with (max_tokens); 0 leaves it to the server. "
            + "`keep ask -t N` overrides it for one question.",
        section: "Engine", validator: .wholeNumber(in: 0...maxTokensLimit))

    /// The largest `maxTokens` (and `-t`) keep accepts.
    package static let maxTokensLimit = 10_000_000

    /// The keychain slot the remote engine's key is read from.
    package static let keySlot = SettingDef(
        key: "keySlot", defaultValue: .string(SecretSlot.openai.rawValue), label: "Key slot",
        help: "Which keychain slot held the API key, as before servers: carried once into the server `default` "
            + "(keep servers add --key).",
        section: "Keys",
        validator: .oneOf(SecretSlot.allCases.map(\.rawValue)))

    /// The account within ``keySlot``, for more than one key per provider.
    package static let keyAccount = SettingDef(
        key: "keyAccount", defaultValue: .string("default"), label: "Key account",
        help: "Which account within the key slot, as before servers: carried once into the server `default`.",
        section: "Keys",
        validator: .nonEmpty)

    /// The one secret setting: the key at `openai`/`default`, only ever in the keychain.
    package static let openaiApiKey = SettingDef(
        key: "openaiApiKey", defaultValue: .string(""), label: "OpenAI API key",
        help: "Sent to the remote engine. Kept in the keychain, never in the settings file, and never shown back.",
        section: "Keys", secretRef: SecretRef(.openai, account: "default"))

    /// Whether the interactive chat keeps the questions typed (``QuestionHistory``).
    package static let chatHistory = SettingDef(
        key: "chatHistory", defaultValue: .bool(true), label: "Question history",
        help: "Whether the interactive chat keeps the lines you type (file history in the data root, 0600) so "
            + "Up and Ctrl-R find them after a relaunch. false keeps none and removes the file.",
        section: "Chat")

    /// The hosts that may get the key over plain http, comma-separated (``CleartextRule``).
    package static let keyOverHttpHosts = SettingDef(
        key: "keyOverHttpHosts", defaultValue: .string(""), label: "Key over plain http to",
        help: "Hosts on a network you trust that may get the API key over plain http (comma-separated). "
            + "Otherwise keep sends a key over http only to this machine: a host every address of which is "
            + "loopback (127.0.0.0/8, ::1) when keep resolves it, the request then sent to that address.",
        section: "Keys", validator: .hostList)

    /// The most an answer may take, in MiB (1 to 1024).
    package static let answerLimitMiB = SettingDef(
        key: "answerLimitMiB", defaultValue: .number(8), label: "Answer size limit (MiB)",
        help: "The most a server's answer may take, in MiB; a longer answer ends the turn with a message.",
        section: "Engine", validator: .number(in: 1...1024))

    /// The most an answer may take, in seconds (1 to 86,400), however steadily it comes.
    package static let answerTimeoutSeconds = SettingDef(
        key: "answerTimeoutSeconds", defaultValue: .number(RemoteEngine.defaultAnswerTimeout),
        label: "Answer time limit (s)",
        help: "The most time a server's answer may take, in seconds, from the question sent to the answer's end, "
            + "however steadily it comes; a longer one ends the turn with a message, the question kept as the draft.",
        section: "Engine", validator: .wholeNumber(in: 1...86_400))

    /// The whole registry, in display order.
    package static let defs: [SettingDef] = [
        engineId, baseUrl, model, temperature, system, maxTokens, keySlot, keyAccount, openaiApiKey,
        keyOverHttpHosts, answerLimitMiB, answerTimeoutSeconds, chatHistory,
    ]

    /// The hosts the `keyOverHttpHosts` setting allows to get the key over plain http.
    package static func keyOverHttpHostsIn(_ settings: SettingsStore) -> [String] {
        CleartextRule.hosts(inSetting: settings.value(keyOverHttpHosts.key)?.string ?? "")
    }

    /// The answer time limit in seconds (the `answerTimeoutSeconds` setting).
    package static func answerTimeoutIn(_ settings: SettingsStore) -> TimeInterval {
        settings.value(answerTimeoutSeconds.key)?.number ?? RemoteEngine.defaultAnswerTimeout
    }

    /// The answer size limit in bytes (the `answerLimitMiB` setting).
    package static func answerLimitIn(_ settings: SettingsStore) -> Int {
        let mebibytes = settings.value(answerLimitMiB.key)?.number ?? 8
        return Int(mebibytes * Double(1 << 20))
    }

    /// The keychain ref the remote engine's key is read from: the `keySlot` and
    /// `keyAccount` settings (by default `openai`/`default`, the ref of ``openaiApiKey``).
    ///
    /// Both settings were checked when they were loaded or set; a value that still does
    /// not name a slot is reported as `SettingsError.refused(key:reason:)`, never replaced.
    package static func apiKeyRef(_ settings: SettingsStore) throws(SettingsError) -> SecretRef {
        try apiKeyRef(settings.value)
    }

    /// ``apiKeyRef(_:)`` from `value`, the value in use for a setting's key (a
    /// `SettingsFacade`'s, say).
    package static func apiKeyRef(_ value: (String) -> SettingValue?) throws(SettingsError) -> SecretRef {
        let slotName = value(keySlot.key)?.string ?? ""
        guard let slot = SecretSlot(rawValue: slotName) else {
            throw .refused(key: keySlot.key, reason: "\(keySlot.key) must be \(keySlot.rule)")
        }
        let account = value(keyAccount.key)?.string ?? ""
        guard !account.isEmpty else {
            throw .refused(key: keyAccount.key, reason: "\(keyAccount.key) must be \(keyAccount.rule)")
        }
        return SecretRef(slot, account: account)
    }

    /// The API key the remote engine sends, or `nil` when none is stored or it is empty
    /// (so no `Authorization` header is built from it).
    ///
    /// Reads the ref ``apiKeyRef(_:)`` names through the whole ``/KeepPorts/SecretsPort``, which a
    /// settings screen never holds. Throws `SettingsError.secrets(_:)` when the keychain
    /// cannot be reached.
    package static func apiKeyFor(
        secrets: any SecretsPort, settings: SettingsStore
    ) async throws(SettingsError)
        -> String?
    {
        try await readSecret(secrets: secrets, ref: try apiKeyRef(settings))
    }

    /// The server today's `baseUrl`, `model`, `keySlot` and `keyAccount` settings describe,
    /// named `default`: what the carry-over into the servers file writes, once.
    ///
    /// Throws `SettingsError.refused(key:reason:)` when a value still does not fit its rule.
    package static func carriedServer(_ settings: SettingsStore) throws(SettingsError) -> ServerProfile {
        let url = settings.value(baseUrl.key)?.string ?? ""
        if let problem = ServerURLRule.problem(in: url) {
            throw .refused(key: baseUrl.key, reason: "baseUrl is refused: \(problem)")
        }
        let model = settings.value(model.key)?.string ?? "default"
        return ServerProfile(
            name: Profiles.defaultName, url: url, wire: .openai, key: try apiKeyRef(settings),
            model: model.isEmpty ? "default" : model)
    }
}
