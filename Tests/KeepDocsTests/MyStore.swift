import KeepPorts

/// A `StoragePort` of your own, as the contract-kit article writes one: every value in one
/// dictionary behind an actor, which makes each write atomic.
actor MyStore: StoragePort {
    private var values: [StorageKey: String] = [:]

    func read(_ key: StorageKey) throws(StorageError) -> String? {
        try Self.refuseEmpty(key, "read")
        return values[key]
    }

    func write(_ key: StorageKey, _ value: String) throws(StorageError) {
        try Self.refuseEmpty(key, "write")
        values[key] = value
    }

    func remove(_ key: StorageKey) throws(StorageError) {
        try Self.refuseEmpty(key, "remove")
        values[key] = nil
    }

    func listIds(_ namespace: Namespace) -> [String] {
        values.keys.filter { $0.namespace == namespace }.map(\.id)
    }

    func clear(_ namespace: Namespace) {
        values = values.filter { $0.key.namespace != namespace }
    }

    private static func refuseEmpty(_ key: StorageKey, _ operation: String) throws(StorageError) {
        if key.id.isEmpty {
            throw .invalidId(key.id, in: key.namespace, operation: operation, reason: "an id cannot be empty")
        }
    }
}
