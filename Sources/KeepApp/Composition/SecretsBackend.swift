import KeepChatSealing
import KeepPorts

/// The keychain `keep` runs on this time, and the truth about it: the Secret Service when
/// there is one (even locked: see ``keyringRefusal``), else process memory, with the reason.
///
/// ``secrets`` and ``keyStore`` are always the same mechanism, chosen by one probe. Only
/// no session bus, or no Secret Service on it, gives process memory: a keyring that is
/// locked or fails stays the keyring, so every read says so rather than finding nothing.
package struct SecretsBackend: Sendable {
    /// Where API keys are read and stored.
    package let secrets: any SecretsPort
    /// Where the app's own keys (the data key of sealed storage) are kept.
    package let keyStore: any KeyStorePort
    /// Why the keyring is not used, when it is not: the typed error of the probe.
    package let keyringUnavailable: SecretsError?
    /// The environment variables whose keys were put into process memory, when the
    /// keyring is not used.
    package let environmentKeys: [String]
    /// Why the keyring, which is used, refused the probe (locked, no default collection,
    /// failing): until that changes, no key can be read or stored, and none is taken from
    /// anywhere else.
    package let keyringRefusal: SecretsError?

    /// The backend on `secrets` and `keyStore` (one mechanism), with why the keyring is not
    /// used or refused, when it is so.
    package init(
        secrets: any SecretsPort, keyStore: any KeyStorePort, keyringUnavailable: SecretsError? = nil,
        environmentKeys: [String] = [], keyringRefusal: SecretsError? = nil
    ) {
        self.secrets = secrets
        self.keyStore = keyStore
        self.keyringUnavailable = keyringUnavailable
        self.environmentKeys = environmentKeys
        self.keyringRefusal = keyringRefusal
    }

    /// Whether a key is stored under `ref`, asked now (the keyring may have been locked or
    /// stopped since the probe). In process memory, a key from the environment is
    /// ``KeyPresence/stored``; no such key is ``KeyPresence/unknown(_:)`` with the reason
    /// no keyring answers, never ``KeyPresence/none``.
    package func presence(of ref: SecretRef) async -> KeyPresence {
        do {
            if try await secrets.has(ref) { return .stored }
        } catch {
            return .unknown(error)
        }
        if let keyringUnavailable { return .unknown(keyringUnavailable) }
        return .none
    }

    /// The chats' sealing's part: the key store, why it refuses or why no keyring answers,
    /// and the platform's sealer.
    package var chatKeys: ChatKeys {
        ChatKeys(store: keyStore, refusal: keyringRefusal, unavailable: keyringUnavailable, sealing: Platform.sealing)
    }

    /// How well the keys are protected: the keyring's, or process memory's.
    package var protection: SecretProtection { secrets.protection }

    /// What holds the keys, in a few words: `Secret Service (OS keyring)`.
    package var name: String {
        switch protection {
        case .hardware: "hardware-backed keychain"
        case .osKeyring: "Secret Service (OS keyring)"
        case .processMemory: "process memory"
        }
    }

    /// What the keys' protection is, said plainly beside where they are kept (not a
    /// warning: nothing needs doing): for the OS keyring, that it is not hardware-backed;
    /// `nil` for the other backends, whose ``warning`` says it.
    package var protectionNote: String? {
        guard protection == .osKeyring, keyringRefusal == nil else { return nil }
        return "encrypted at rest by your login password and open to your own programs while you are logged in; "
            + "not hardware-backed"
    }

    /// The warning for this backend when something needs the user: a keyring that refuses
    /// (locked), or none at all (keys in process memory); `nil` when the keys are kept as
    /// they should be (the OS keyring's honest limits are its ``protectionNote``).
    package var warning: String? {
        switch protection {
        case .hardware:
            return nil
        case .osKeyring:
            guard let keyringRefusal else { return nil }
            return "the keyring cannot be used now: \(keyringRefusal). No key can be read or stored until it "
                + "can, and keep takes none from anywhere else meanwhile"
        case .processMemory:
            let seeded =
                environmentKeys.isEmpty
                ? "no key is set in the environment either"
                : "keys come from \(environmentKeys.joined(separator: ", ")) for this run only"
            let reason = keyringUnavailable.map { " (\($0))" } ?? ""
            return "no keyring answers\(reason). Keys are held in this process's memory and are gone when keep "
                + "exits: \(seeded), and `keep key set` cannot store one"
        }
    }

    /// How to get a keyring, and the way around it for one run.
    package static let keyringAdvice =
        "to keep keys, run keep where a Secret Service answers: log in to a desktop session, or start one with "
        + "`dbus-run-session -- bash` and `gnome-keyring-daemon --components=secrets --unlock`; for one run, set "
        + "OPENAI_API_KEY (or ANTHROPIC_API_KEY, GOOGLE_API_KEY, OPENROUTER_API_KEY) instead"

    /// Why a key cannot be stored here, or `nil` when it can: process memory would lose it
    /// the moment the command exits.
    package var refusalToStore: SecretsError? {
        guard !protection.persists else { return nil }
        let reason = keyringUnavailable.map { "no keyring answers (\($0))" } ?? "no keyring answers"
        return SecretsError(
            code: .notPersistent, operation: "store a key",
            detail: "\(reason), and a key set in process memory would be gone when this command exits; "
                + Self.keyringAdvice)
    }
}
