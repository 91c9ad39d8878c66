import Foundation
import KeepFileStore
import KeepPorts

/// The code of the file-store article and of the README's tour, compiled. It writes under
/// the data root of this process's environment, so no test runs it: the file store's own
/// tests cover each call.
enum FileStoreSnippets {
    /// Writes `serializedChat` under `chats`/`c1` of the file store at the data root, and
    /// reads it back.
    static func storeInTheDataRoot(_ serializedChat: String) async throws -> String? {
        let root = try DataRoot.resolve(environment: ProcessInfo.processInfo.environment)
        let store = try FileStore(root: root)  // creates nothing until the first write
        try await store.write(StorageKey(.chats, "c1"), serializedChat)
        let raw = try await store.read(StorageKey(.chats, "c1"))  // nil when absent
        return raw
    }
}
