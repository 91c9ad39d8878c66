import KeepCore
import KeepPorts

/// One engine `keep` can answer with, as the app's one table (`EngineCatalog`, in KeepApp) lists it: its
/// id, how the settings describe it, how it is built, and what `keep doctor` checks for it.
package struct EngineKind: Sendable {
    /// What an engine needs before it can answer: what `keep doctor` checks for it.
    package struct Needs: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// A server, from the servers file (the `default` one unless a question names another).
        package static let server = Needs(rawValue: 1 << 0)
        /// An API key, in the keychain ref the server names, sent to a server that is not on
        /// this machine.
        package static let key = Needs(rawValue: 1 << 1)
    }

    /// What a factory builds an engine from: the settings, the keychain, and why no keyring
    /// answers this run (`nil` when one does).
    package struct Setup: Sendable {
        /// The loaded settings the engine reads its own from (`baseUrl`, `model`, …).
        package let settings: SettingsStore
        /// The keychain the engine reads its key from, when it needs one.
        package let secrets: any SecretsPort
        /// Why no keyring answers this run, or `nil` when one does: an engine names it
        /// rather than advising to store a key.
        package let keyringUnavailable: SecretsError?
        /// The server a remote engine asks (``ServerBook``).
        package let server: ServerProfile
        /// Where a remote engine learns a model's context window when its server has no
        /// budget of its own (kept data); `nil`: nowhere.
        package let windows: (any ContextWindowSource)?

        /// What an engine is built from: `settings`, the keychain `secrets`, why no keyring
        /// answers (`keyringUnavailable`, when none does), the `server` asked, and where a
        /// remote engine learns a context window (`windows`).
        package init(
            settings: SettingsStore, secrets: any SecretsPort, keyringUnavailable: SecretsError?,
            server: ServerProfile, windows: (any ContextWindowSource)? = nil
        ) {
            self.settings = settings
            self.secrets = secrets
            self.keyringUnavailable = keyringUnavailable
            self.server = server
            self.windows = windows
        }
    }

    /// The value of the `engineId` setting that chooses it, and what a chat records.
    package let id: String
    /// What it is, in a few words, for the setting's help: `offline, repeats you`.
    package let summary: String
    /// What it needs before it can answer: what `keep doctor` checks for it.
    package let needs: Needs
    /// Builds the engine; throws ``EngineError/Code/configuration`` when the settings do not
    /// make one.
    package let make: @Sendable (Setup) throws(EngineError) -> any ChatEngine

    /// The engine `id`, described by `summary`, needing `needs`, built by `make`.
    package init(
        id: String, summary: String, needs: Needs,
        make: @escaping @Sendable (Setup) throws(EngineError) -> any ChatEngine
    ) {
        self.id = id
        self.summary = summary
        self.needs = needs
        self.make = make
    }
}
