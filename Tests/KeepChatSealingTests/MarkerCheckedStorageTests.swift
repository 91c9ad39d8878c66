import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSealed
import Testing

@testable import KeepChatSealing

/// A run writes its chats only as it opened them: `keep chats seal` or `unseal` in another
/// process since its launch refuses its writes, which would leave a chat half one, half the
/// other.
@Suite("Chats written only under the sealing they were opened with")
struct MarkerCheckedStorageTests {
    private let chat = StorageKey(.chats, "20250614-0001")

    /// The chats of a fresh root on a keyring that keeps keys, opened as a launch opens them.
    private func launch(
        _ directory: TemporaryDirectory, keys: MemoryKeyStore
    ) async throws -> ChatSealing.Opened {
        let keys = ChatKeys(store: keys, refusal: nil, unavailable: nil, sealing: AESGCMSealing())
        let files = try FileStore(root: directory.path)
        let opened = try await ChatSealing.open(files, keys: { keys }, root: directory.path)
        guard let first = opened.storage as? FirstChatSealing else { return opened }
        return try await first.decide()
    }

    @Test("a sealed run's append is refused once another keep unseals, and writes nothing; before, it is kept")
    func sealedRunAfterUnseal() async throws {
        let directory = try TemporaryDirectory()
        let keys = MemoryKeyStore(protection: .osKeyring)
        let opened = try await launch(directory, keys: keys)
        guard case .sealed(phase: .sealed) = opened.state else {
            Issue.record("a fresh root on a keyring is sealed from its first chat: \(opened.state)")
            return
        }
        try await opened.storage.write(chat, "{\"a\":1}\n")
        #expect(try await opened.storage.append(chat) { _ in "{\"b\":2}" }, "the pair: written while nothing changed")

        // Another keep's `keep chats unseal` starts: the marker says so.
        let files = try FileStore(root: directory.path)
        let before = try await files.read(chat)
        var marker = try #require(try await ChatSealingMarker.read(files))
        marker.phase = .unsealing
        try await marker.write(files)
        await #expect {
            try await opened.storage.append(chat) { _ in "{\"c\":3}" }
        } throws: { error in
            let error = try #require(error as? StorageError)
            return error.code == .unavailable && "\(error)".contains("sealed or unsealed by another keep")
                && "\(error)".contains("unsealing now")
        }
        await #expect(throws: StorageError.self) { try await opened.storage.write(StorageKey(.drafts, "d"), "q") }
        await #expect(throws: StorageError.self) { try await opened.storage.remove(chat) }
        #expect(try await files.read(chat) == before, "nothing was written")
        #expect(try await files.read(StorageKey(.drafts, "d")) == nil)
        // Reads still work, and so do settings and the cache.
        #expect(try await opened.storage.read(chat)?.contains("\"b\"") == true)
        try await opened.storage.write(StorageKey(.settings, "settings"), "{}")
    }

    @Test("a plain run's write is refused once another keep seals the root, and writes nothing")
    func plainRunAfterSeal() async throws {
        let directory = try TemporaryDirectory()
        // No keyring that keeps keys: plain, with no marker.
        let opened = try await launch(directory, keys: MemoryKeyStore())
        if case .sealed = opened.state { Issue.record("no keyring keeps keys: the chats are plain") }
        try await opened.storage.write(chat, "{\"a\":1}\n")

        let files = try FileStore(root: directory.path)
        try await ChatSealingMarker(phase: .sealing, keyCheck: [1, 2, 3]).write(files)
        await #expect(throws: StorageError.self) { try await opened.storage.append(chat) { _ in "{\"b\":2}" } }
        #expect(try await files.read(chat) == "{\"a\":1}\n", "the plain line never follows what seal wrote")
    }
}
