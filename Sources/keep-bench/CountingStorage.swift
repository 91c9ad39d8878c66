import KeepPorts
import Synchronization

/// A store that counts the bytes handed to the store beneath it (a write's whole value, an
/// append's line), and otherwise passes every call through, stamps included.
struct CountingStorage: StampedStorage {
    let inner: any StampedStorage
    private let counter = Counter()

    init(_ inner: any StampedStorage) { self.inner = inner }

    /// The bytes written and appended so far.
    var bytes: Int { counter.total.withLock { $0 } }

    func read(_ key: StorageKey) async throws(StorageError) -> String? { try await inner.read(key) }

    func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? { try await inner.readUTF8(key) }

    func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        counter.add(value.utf8.count)
        try await inner.write(key, value)
    }

    func append(_ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String) async throws(StorageError) -> Bool {
        let counter = counter
        return try await inner.append(key) { offset in
            let text = line(offset)
            counter.add(text.utf8.count)
            return text
        }
    }

    func remove(_ key: StorageKey) async throws(StorageError) { try await inner.remove(key) }
    func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] { try await inner.listIds(namespace) }
    func clear(_ namespace: Namespace) async throws(StorageError) { try await inner.clear(namespace) }

    func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        try await inner.stamps(namespace)
    }

    func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? { try await inner.stamp(key) }

    private final class Counter: Sendable {
        let total = Mutex(0)

        func add(_ count: Int) { total.withLock { $0 += count } }
    }
}
