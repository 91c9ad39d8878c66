import KeepApp
import KeepChatSealing
import KeepCore
import KeepPorts

/// What `keep settings` shows (and prints with `--json`): every setting with its value and
/// whether it is a deliberate choice, secrets as configured or not (never a value), the
/// key the remote engine would send, how the keychain protects keys, where kept data
/// lives (or why nothing is kept), whether the chats are sealed, and what is wrong with the settings file, if anything.
///
/// ```json
/// { "file" : { "healthy" : true, "refusals" : [], "status" : "the settings file is fine" },
///   "kept" : { "kept" : true, "retention" : "30 days",
///              "status" : "sealed in /home/me/.local/share/keep/kept.sqlite, under a key in the keyring" },
///   "chats" : { "state" : "sealed", "status" : "sealed under the chats' data key in the keyring …" },
///   "key" : { "account" : "default", "configured" : false, "slot" : "openai" },
///   "secrets" : { "backend" : "Secret Service (OS keyring)", "hardwareBacked" : false,
///                 "note" : "…", "protection" : "osKeyring" },
///   "settings" : [ { "default" : "echo", "help" : "…", "isSet" : false, "key" : "engineId",
///                    "kind" : "string", "label" : "Engine", "rule" : "one of echo, remote",
///                    "secret" : false, "section" : "Engine", "value" : "echo" },
///                  { "configured" : true, "key" : "openaiApiKey", "secret" : true, … } ] }
/// ```
///
/// A field with nothing to say (a secret's `value`, a `problem` that did not happen) is
/// left out rather than written as `null`.
package struct SettingsReport: Codable, Sendable, Equatable {
    /// One setting. A plain one has `value`, `default` and `isSet`; a secret one has
    /// `configured` (or `problem` when the keychain could not be asked) and no value.
    package struct Row: Codable, Sendable, Equatable {
        /// The setting's name in the file and on the command line.
        package let key: String
        /// Its short name for a screen.
        package let label: String
        /// The group it is shown under.
        package let section: String
        /// What it does, in a sentence or two.
        package let help: String
        /// `string`, `number` or `bool`.
        package let kind: String
        /// What the setting accepts, in words.
        package let rule: String
        /// Whether it is secret-flagged: its value is only ever in the keychain, and never
        /// shown.
        package let secret: Bool
        /// The value in use: the choice, else the default.
        package let value: ReportValue?
        /// The default, for a plain setting; left out for a secret.
        package let `default`: ReportValue?
        /// Whether the value is a deliberate choice rather than the default.
        package let isSet: Bool
        /// For a secret: whether the keychain holds a value for it.
        package let configured: Bool?
        /// For a secret: why the keychain could not say.
        package let problem: String?
    }

    /// The keychain slot and account the remote engine reads its key from.
    package struct Key: Codable, Sendable, Equatable {
        /// The keychain slot (the `keySlot` setting).
        package let slot: String
        /// The account within it (the `keyAccount` setting).
        package let account: String
        /// Whether a key is stored there; left out when the keychain could not tell.
        package let configured: Bool?
        /// Why the keychain could not tell, and what to do.
        package let problem: String?
    }

    /// Where keys are kept, and the honest word on it.
    package struct Secrets: Codable, Sendable, Equatable {
        /// What holds the keys, in a few words: `Secret Service (OS keyring)`.
        package let backend: String
        /// `hardware`, `osKeyring` or `processMemory`.
        package let protection: String
        /// Whether the keys are protected by hardware; false on Linux, honestly.
        package let hardwareBacked: Bool
        /// What the protection is, plainly, when nothing needs doing (the OS keyring: not
        /// hardware-backed).
        package let note: String?
        /// Shown when something needs the user: a keyring that refuses, or none.
        package let warning: String?
        /// Why the keyring is not used, when it is not.
        package let keyringUnavailable: String?
    }

    /// Where kept data (readings, markers, preferences) lives, or why nothing is kept.
    package struct Kept: Codable, Sendable, Equatable {
        /// Whether kept data outlives this run.
        package let kept: Bool
        /// Where it is sealed, or why nothing is kept.
        package let status: String
        /// How long readings are kept; left out when the kept choice cannot be read.
        package let retention: String?

        /// The report of `data`.
        package static func make(_ data: KeptData) async -> Kept {
            let kept: Bool
            switch data.status {
            case .kept, .notYet: kept = true
            case .notKept, .failed: kept = false
            }
            return Kept(
                kept: kept, status: data.status.summary, retention: try? await data.engines.retention().description)
        }
    }

    /// Whether the chats (and drafts) are sealed at rest, and under which key.
    package struct Chats: Codable, Sendable, Equatable {
        /// `sealed`, `plain`, `part-way`, `not yet`, `locked` or `key gone`.
        package let state: String
        /// The state in one line, with what to do when something needs doing.
        package let status: String

        /// The report of `sealing`.
        package init(_ sealing: ChatSealing) {
            state = sealing.name
            status = sealing.summary
        }
    }

    /// The settings file's health.
    package struct File: Codable, Sendable, Equatable {
        /// True when the file read without trouble and every field was used.
        package let healthy: Bool
        /// The file's health, in one line.
        package let status: String
        /// Fields of the file that are not used, each with why (`key: reason`).
        package let refusals: [String]
    }

    /// Every setting, in display order.
    package let settings: [Row]
    /// The key the remote engine would send; left out when the key settings cannot name
    /// one.
    package let key: Key?
    /// Where keys are kept, and how well.
    package let secrets: Secrets
    /// Left out when kept data could not even be opened in memory.
    package let kept: Kept?
    /// Whether the chats are sealed; left out when the store could not be opened.
    package let chats: Chats?
    /// The settings file's health.
    package let file: File

    /// The report of these parts; ``make(_:backend:kept:chats:)`` builds one from the store.
    package init(settings: [Row], key: Key?, secrets: Secrets, kept: Kept? = nil, chats: Chats? = nil, file: File) {
        self.settings = settings
        self.key = key
        self.secrets = secrets
        self.kept = kept
        self.chats = chats
        self.file = file
    }

    /// `configured` and `problem` for a secret in the state `presence`: a keyring that
    /// cannot tell gives no `configured` at all, and the reason with what to do.
    static func secretState(_ presence: KeyPresence) -> (configured: Bool?, problem: String?) {
        switch presence {
        case .stored: (true, nil)
        case .none: (false, nil)
        case .unknown(let error):
            (nil, "cannot tell: \(error)")
        }
    }

    /// The report of `store`, with secrets asked of `backend` (presence only) and kept
    /// data described from `kept`. The settings come as the facade a settings screen is
    /// handed, which has no way to read a secret back.
    package static func make(
        _ store: SettingsFacade, backend: SecretsBackend, kept: KeptData? = nil, chats: ChatSealing? = nil
    ) async
        -> SettingsReport
    {
        var rows: [Row] = []
        for def in store.defs {
            var configured: Bool?
            var problem: String?
            if def.isSecret {
                if let ref = def.secretRef {
                    (configured, problem) = Self.secretState(await backend.presence(of: ref))
                } else {
                    do {
                        configured = try await store.hasSecret(def.key)
                    } catch {
                        problem = error.description
                    }
                }
            }
            rows.append(
                Row(
                    key: def.key, label: def.label, section: def.section, help: def.help, kind: def.kind.rawValue,
                    rule: def.rule, secret: def.isSecret, value: store.value(def.key).map(ReportValue.init),
                    default: def.isSecret ? nil : ReportValue(def.defaultValue), isSet: store.isSet(def.key),
                    configured: configured, problem: problem))
        }
        var key: Key?
        if let ref = try? SettingRegistry.apiKeyRef(store.value) {
            let (configured, problem) = Self.secretState(await backend.presence(of: ref))
            key = Key(slot: ref.slot.rawValue, account: ref.account, configured: configured, problem: problem)
        }
        let healthy = store.health == .fine && store.refusals.isEmpty
        var keptReport: Kept?
        if let kept { keptReport = await Kept.make(kept) }
        return SettingsReport(
            settings: rows, key: key,
            secrets: Secrets(
                backend: backend.name, protection: backend.protection.rawValue,
                hardwareBacked: backend.protection.isHardwareBacked, note: backend.protectionNote,
                warning: backend.warning,
                keyringUnavailable: backend.keyringUnavailable?.description),
            kept: keptReport, chats: chats.map(Chats.init),
            file: File(
                healthy: healthy, status: fileStatus(store.health, refusals: store.refusals.count),
                refusals: store.refusals.map(\.description)))
    }

    /// The settings file's state in one line: its health, or, for a file that was read but
    /// has fields that are not used, how many there are (never "fine" beside a refusal).
    static func fileStatus(_ health: SettingsHealth, refusals: Int) -> String {
        guard health == .fine, refusals > 0 else { return health.description }
        return Plural.of(refusals, "field") + " of the settings file " + (refusals == 1 ? "is" : "are")
            + " not used: " + (refusals == 1 ? "its default applies" : "their defaults apply")
    }
}
