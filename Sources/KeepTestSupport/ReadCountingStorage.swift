import KeepPorts
import Synchronization

/// A store that counts the chats read through it, so a test can tell a listing served by
/// the index from one that read the chats.
package final class ReadCountingStorage: StampedStorage {
    private let inner: any StampedStorage
    private let reads = Mutex<[String]>([])

    package init(_ inner: any StampedStorage) {
        self.inner = inner
    }

    /// The ids of the chats read so far, in order.
    package var chatsRead: [String] { reads.withLock { $0 } }

    package func read(_ key: StorageKey) async throws(StorageError) -> String? {
        if key.namespace == .chats { reads.withLock { $0.append(key.id) } }
        return try await inner.read(key)
    }

    package func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
        if key.namespace == .chats { reads.withLock { $0.append(key.id) } }
        return try await inner.readUTF8(key)
    }

    package func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        try await inner.write(key, value)
    }
    package func remove(_ key: StorageKey) async throws(StorageError) { try await inner.remove(key) }
    package func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        try await inner.listIds(namespace)
    }
    package func clear(_ namespace: Namespace) async throws(StorageError) { try await inner.clear(namespace) }
    package func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        try await inner.stamps(namespace)
    }
    package func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? { try await inner.stamp(key) }
}
