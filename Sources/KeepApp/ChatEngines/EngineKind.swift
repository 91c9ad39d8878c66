import KeepCore
import KeepPorts

/// One engine `keep` can answer with, as the one table (``EngineCatalog``) lists it: its
/// id, how the settings describe it, how it is built, and what `keep doctor` checks for it.
public struct EngineKind: Sendable {
    /// What an engine needs before it can answer: what `keep doctor` checks for it.
    public struct Needs: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A server, at the `baseUrl` setting, asked for the `model` setting.
        public static let server = Needs(rawValue: 1 << 0)
        /// An API key, in the keychain ref the `keySlot` and `keyAccount` settings name,
        /// sent to a server that is not on this machine.
        public static let key = Needs(rawValue: 1 << 1)
    }

    /// What a factory builds an engine from: the settings, the keychain, and why no keyring
    /// answers this run (`nil` when one does).
    public struct Setup: Sendable {
        /// The loaded settings the engine reads its own from (`baseUrl`, `model`, …).
        public let settings: SettingsStore
        /// The keychain the engine reads its key from, when it needs one.
        public let secrets: any SecretsPort
        /// Why no keyring answers this run, or `nil` when one does: an engine names it
        /// rather than advising to store a key.
        public let keyringUnavailable: SecretsError?
    }

    /// The value of the `engineId` setting that chooses it, and what a chat records.
    public let id: String
    /// What it is, in a few words, for the setting's help: `offline, repeats you`.
    public let summary: String
    /// What it needs before it can answer: what `keep doctor` checks for it.
    public let needs: Needs
    /// Builds the engine; throws ``EngineError/Code/configuration`` when the settings do not
    /// make one.
    public let make: @Sendable (Setup) throws(EngineError) -> any ChatEngine

    /// The engine `id`, described by `summary`, needing `needs`, built by `make`.
    public init(
        id: String, summary: String, needs: Needs,
        make: @escaping @Sendable (Setup) throws(EngineError) -> any ChatEngine
    ) {
        self.id = id
        self.summary = summary
        self.needs = needs
        self.make = make
    }
}
