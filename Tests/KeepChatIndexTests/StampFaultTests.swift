import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Synchronization
import Testing

@testable import KeepChatIndex

#if canImport(Glibc)
    import Glibc
#endif

/// One seam for the disk: the index stamps the chats through the store's `StampedStorage`,
/// so a fault the seam injects in a stamp reaches the listing, as that chat's problem.
@Suite("The index's stamps go through the store's seam")
struct StampFaultTests {
    @Test("an EIO injected in one chat's stamp reaches the listing as that chat's problem; the others are listed")
    func anEIOInAStampIsThatChatsProblem() async throws {
        let directory = try TemporaryDirectory()
        let failing = Mutex(false)
        let target = directory.appending("store/chats/c2")
        let recorder = RecordingFileSystem { call in
            failing.withLock { $0 } && call == .statusOfName(target) ? .fail(EIO) : nil
        }
        let store = try FileStore(root: directory.path, calls: recorder)
        let repository = ChatRepository(storage: store)
        let time = Date(timeIntervalSince1970: 1_750_000_000)
        for id in ["c1", "c2", "c3"] {
            try await repository.save(
                Chat(
                    id: id, title: "chat \(id)", messages: [ChatMessage(role: .user, text: "q \(id)", time: time)],
                    created: time, updated: time))
        }
        let index = ChatIndex(root: directory.path, storage: store)
        // The positive first: without the fault every chat is listed.
        #expect(try await index.listing().chats.map(\.id).sorted() == ["c1", "c2", "c3"])

        failing.withLock { $0 = true }
        let listing = try await index.listing()
        #expect(listing.chats.map(\.id).sorted() == ["c1", "c3"], "\(listing)")
        let problem = try #require(listing.unreadable.first { $0.id == "c2" }, "\(listing)")
        #expect(problem.reason.contains("EIO"), "\(problem)")

        // Healed, the chat is listed again, as it was.
        failing.withLock { $0 = false }
        #expect(try await index.listing().chats.map(\.id).sorted() == ["c1", "c2", "c3"])
    }
}
