/// A ``KeyStorePort`` held in this process's memory: the test double. Its protection is
/// ``SecretProtection/processMemory`` unless a test says otherwise, so whoever uses it
/// knows nothing is kept.
public actor MemoryKeyStore: KeyStorePort {
    public nonisolated let protection: SecretProtection
    private var keys: [KeyName: [UInt8]] = [:]

    /// An empty key store, private to this value and gone with the process, that says its
    /// keys have `protection`. A test of what needs a persisting store (the data-key vault
    /// keeps data only under one) gives ``SecretProtection/osKeyring``; nothing else should.
    public init(protection: SecretProtection = .processMemory) {
        self.protection = protection
    }

    public func load(_ name: KeyName) -> [UInt8]? { keys[name] }

    public func store(_ name: KeyName, _ key: [UInt8]) { keys[name] = key }

    public func delete(_ name: KeyName) { keys[name] = nil }
}
