import KeepPorts
import KeepSealed

/// A key store that says it is an OS keyring, for vault tests: keys in memory, and the
/// failures and resets a real keyring can have, on demand.
actor KeyringDouble: KeyStorePort {
    nonisolated let protection: SecretProtection = .osKeyring
    private var keys: [KeyName: [UInt8]] = [:]
    private var loadFailure: SecretsError?
    private var storeFailure: SecretsError?
    private(set) var storeCount = 0
    /// Run at every load and store, before it answers, as a slow D-Bus call would take time.
    private var duringCall: (@Sendable () async -> Void)?

    func load(_ name: KeyName) async throws(SecretsError) -> [UInt8]? {
        await duringCall?()
        if let loadFailure { throw loadFailure }
        return keys[name]
    }

    func store(_ name: KeyName, _ key: [UInt8]) async throws(SecretsError) {
        await duringCall?()
        if let storeFailure { throw storeFailure }
        storeCount += 1
        keys[name] = key
    }

    func delete(_ name: KeyName) {
        keys[name] = nil
    }

    /// The data key as the keyring holds it.
    func dataKey() throws -> [UInt8]? {
        keys[try KeyName(DataKeyVault.keyName)]
    }

    /// Replaces the data key behind the vault's back (a restore, a damaged item).
    func plantDataKey(_ bytes: [UInt8]) throws {
        keys[try KeyName(DataKeyVault.keyName)] = bytes
    }

    /// Forgets every key, as a reset keyring does.
    func reset() {
        keys = [:]
    }

    func failLoads(_ error: SecretsError?) { loadFailure = error }
    func whileAsked(_ hook: (@Sendable () async -> Void)?) { duringCall = hook }
    func failStores(_ error: SecretsError?) { storeFailure = error }
}
