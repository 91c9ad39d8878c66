import KeepPorts

/// A key store that says it is an OS keyring, with its keys in memory: what the data-key
/// vault needs to keep data in a test, without a real keyring.
actor TestKeyring: KeyStorePort {
    nonisolated let protection: SecretProtection = .osKeyring
    private var keys: [KeyName: [UInt8]] = [:]

    func load(_ name: KeyName) -> [UInt8]? { keys[name] }

    func store(_ name: KeyName, _ key: [UInt8]) { keys[name] = key }

    func delete(_ name: KeyName) { keys[name] = nil }
}
