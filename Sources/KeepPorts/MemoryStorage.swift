/// A ``StoragePort`` held in this process's memory: the test double, and the store of a
/// host that has no disk to give.
///
/// It keeps every promise of the storage and append contracts (an actor makes each write
/// and each append atomic) and refuses the empty id, as every adapter does, so code tested
/// on it behaves the same on the file store. It stamps its values (``StampedStorage``): a
/// counter of its changes is the change token, and its time is 0, so a cache can be tested
/// on it. Nothing survives the process.
public actor MemoryStorage: StampedStorage {
    private var values: [Namespace: [String: Entry]] = [:]
    /// How many changes this store has made: the next change's token.
    private var changes: UInt64 = 0

    /// A value and the change that made it what it is.
    private struct Entry {
        var value: String
        var change: UInt64
    }

    /// An empty store, or one holding `seed`.
    public init(_ seed: [StorageKey: String] = [:]) {
        for (key, value) in seed {
            changes += 1
            values[key.namespace, default: [:]][key.id] = Entry(value: value, change: changes)
        }
    }

    public func read(_ key: StorageKey) throws(StorageError) -> String? {
        try Self.check(key, "read")
        return values[key.namespace]?[key.id]?.value
    }

    public func write(_ key: StorageKey, _ value: String) throws(StorageError) {
        try Self.check(key, "write")
        changes += 1
        values[key.namespace, default: [:]][key.id] = Entry(value: value, change: changes)
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

    /// Adds the line after the value's finished lines, in one step of the actor: no other
    /// call sees the value half-appended. `false`, changing nothing, when there is no value.
    @discardableResult
    public func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) throws(StorageError) -> Bool {
        try Self.check(key, "append")
        guard let old = values[key.namespace]?[key.id] else { return false }
        let value = try ValueLines.appending(line, to: old.value, key: key)
        changes += 1
        values[key.namespace]?[key.id] = Entry(value: value, change: changes)
        return true
    }

    /// Every value's stamp in `namespace`: its UTF-8 size and the number of the change that
    /// made it.
    public func stamps(_ namespace: Namespace) -> [String: ValueStamp] {
        (values[namespace] ?? [:]).mapValues(Self.stamp)
    }

    /// The value's stamp, or `nil` when there is none.
    public func stamp(_ key: StorageKey) throws(StorageError) -> ValueStamp? {
        try Self.check(key, "stamp")
        return values[key.namespace]?[key.id].map(Self.stamp)
    }

    private static func stamp(_ entry: Entry) -> ValueStamp {
        ValueStamp(size: Int64(entry.value.utf8.count), modified: 0, changeToken: entry.change)
    }

    private static func check(_ key: StorageKey, _ operation: String) throws(StorageError) {
        if key.id.isEmpty {
            throw .invalidId(key.id, in: key.namespace, operation: operation, reason: "an id cannot be empty")
        }
    }
}
