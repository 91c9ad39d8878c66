/// A ``StoragePort`` held in this process's memory: the test double, and the store of a
/// host that has no disk to give.
///
/// It keeps every promise of the storage contract (an actor makes each write atomic) and
/// refuses the empty id, as every adapter does, so code tested on it behaves the same on
/// the file store. Nothing survives the process.
public actor MemoryStorage: StoragePort {
    private var values: [Namespace: [String: String]] = [:]

    /// An empty store, or one holding `seed`.
    public init(_ seed: [StorageKey: String] = [:]) {
        for (key, value) in seed {
            values[key.namespace, default: [:]][key.id] = value
        }
    }

    public func read(_ key: StorageKey) throws(StorageError) -> String? {
        try Self.check(key, "read")
        return values[key.namespace]?[key.id]
    }

    public func write(_ key: StorageKey, _ value: String) throws(StorageError) {
        try Self.check(key, "write")
        values[key.namespace, default: [:]][key.id] = value
    }

    public func remove(_ key: StorageKey) throws(StorageError) {
        try Self.check(key, "remove")
        values[key.namespace]?[key.id] = nil
    }

    public func listIds(_ namespace: Namespace) -> [String] {
        values[namespace].map { Array($0.keys) } ?? []
    }

    public func clear(_ namespace: Namespace) {
        values[namespace] = nil
    }

    private static func check(_ key: StorageKey, _ operation: String) throws(StorageError) {
        if key.id.isEmpty {
            throw .invalidId(key.id, in: key.namespace, operation: operation, reason: "an id cannot be empty")
        }
    }
}
