import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one-time migration from `store.json` always finishes: what can never be copied is
/// recorded once, and deletions made afterwards stick.
@Suite("A migration that finishes")
struct MigrationFinishesTests {
    /// A `store.json` holding one good chat, and two members no try can ever copy.
    static func legacyFile(in directory: TemporaryDirectory) throws -> String {
        let longId = String(repeating: "x", count: 300)
        let text = """
            {
              "keep.chats.good": "a chat",
              "keep.chats.number": 42,
              "keep.drafts.\(longId)": "a question"
            }
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.appending("store.json")))
        return longId
    }

    @Test("a member that can never be copied is skipped with why, once; the migration finishes and never runs again")
    func aNeverCopyableMemberIsSkippedOnce() async throws {
        let directory = try TemporaryDirectory()
        let longId = try Self.legacyFile(in: directory)
        let target = try FileStore(root: directory.path)

        let report = try await migrateStorage(from: try BlobSnapshot(root: directory.path), to: target)
        #expect(report.copied == 1)
        #expect(report.skipped.count == 2)
        #expect(report.skipped.contains { $0.description.contains("keep.chats.number") && $0.code == .corrupt })
        #expect(report.skipped.contains { $0.code == .invalidId && $0.description.contains("at most 255") })
        #expect(report.notice?.contains("2 of its values can never be copied") == true)
        let marker = MigrationMarker(reading: try #require(try await target.read(MigrationMarker.key)))
        #expect(marker.skipped == report.skipped.map(\.description))
        #expect(marker.copied == 1)

        // The user removes the copied chat: the next launch finds the marker, and it stays gone.
        try await target.remove(StorageKey(.chats, "good"))
        let again = try await migrateStorage(from: try BlobSnapshot(root: directory.path), to: target)
        #expect(again.alreadyDone)
        #expect(again.notice == nil)
        #expect(try await target.read(StorageKey(.chats, "good")) == nil)
        // The source keeps every member, unchanged.
        let source = try BlobFileStore(root: directory.path)
        #expect(try await source.read(StorageKey(.chats, "good")) == "a chat")
        #expect(try await source.listIds(.drafts) == [longId])
    }

    @Test("a failure that is not the member's own (EIO) is not skipped: no marker, and the next launch retries")
    func aPassingFailureIsRetried() async throws {
        let directory = try TemporaryDirectory()
        _ = try Self.legacyFile(in: directory)
        let target = FaultyStorage(try FileStore(root: directory.path))
        await target.fail([.write], errno: EIO, only: StorageKey(.chats, "good"))
        await #expect(throws: MigrationError.self) {
            try await migrateStorage(from: try BlobSnapshot(root: directory.path), to: target)
        }
        #expect(try await target.read(MigrationMarker.key) == nil)
        // The pair: once the disk answers, the retry finishes.
        await target.heal()
        let report = try await migrateStorage(from: try BlobSnapshot(root: directory.path), to: target)
        #expect(report.copied == 1 && report.skipped.count == 2)
    }

    @Test("the migration reads store.json once, however many members it has, and reports progress for each")
    func theSourceIsReadOnce() async throws {
        let directory = try TemporaryDirectory()
        let members = (0..<200).map { #""keep.chats.c\#($0)": "value \#($0)""# }
        try Data(("{" + members.joined(separator: ",") + "}").utf8).write(
            to: URL(fileURLWithPath: directory.appending("store.json")))
        let calls = RecordingFileSystem()
        let seen = Mutex<[Int]>([])
        let report = try await migrateStorage(
            from: try BlobSnapshot(root: directory.path, calls: calls), to: try FileStore(root: directory.path),
            progress: { done, total in
                seen.withLock { $0.append(done) }
                #expect(total == 200)
            })
        #expect(report.copied == 200)
        #expect(calls.calls.filter { if case .readFile = $0 { true } else { false } }.count == 1)
        #expect(seen.withLock { $0 } == Array(1...200))
    }
}
