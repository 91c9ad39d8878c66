import KeepPorts

/// A store that refuses every call into some of its namespaces with the error `refusal`
/// gives, touching nothing, and passes the others to the store it wraps: the chats of a
/// run whose chats' key cannot be had (``ChatSealing/locked(_:)``, ``ChatSealing/keyGone``),
/// while settings and the cache still work.
package struct RefusingStorage: StampedStorage {
    private let inner: any StampedStorage
    private let refused: Set<Namespace>
    private let refusal: @Sendable (Namespace) -> StorageError?

    /// `inner`, refusing `namespaces` with `refusal`'s error (none: passed through).
    package init(
        _ inner: any StampedStorage, refusing namespaces: Set<Namespace>,
        refusal: @escaping @Sendable (Namespace) -> StorageError?
    ) {
        self.inner = inner
        refused = namespaces
        self.refusal = refusal
    }

    private func check(_ namespace: Namespace) throws(StorageError) {
        if refused.contains(namespace), let error = refusal(namespace) { throw error }
    }

    package func read(_ key: StorageKey) async throws(StorageError) -> String? {
        try check(key.namespace)
        return try await inner.read(key)
    }

    package func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
        try check(key.namespace)
        return try await inner.readUTF8(key)
    }

    package func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        try check(key.namespace)
        try await inner.write(key, value)
    }

    @discardableResult
    package func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        try check(key.namespace)
        return try await inner.append(key, line)
    }

    package func remove(_ key: StorageKey) async throws(StorageError) {
        try check(key.namespace)
        try await inner.remove(key)
    }

    package func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        try check(namespace)
        return try await inner.listIds(namespace)
    }

    package func clear(_ namespace: Namespace) async throws(StorageError) {
        try check(namespace)
        try await inner.clear(namespace)
    }

    package func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        try check(namespace)
        guard let stamped = inner as? any StampedStorage else { throw .noStamps("stamps", path: namespace.rawValue) }
        return try await stamped.stamps(namespace)
    }

    package func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? {
        try check(key.namespace)
        guard let stamped = inner as? any StampedStorage else { throw .noStamps("stamp", path: key.description) }
        return try await stamped.stamp(key)
    }
}
