import Foundation
import KeepConformance
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every directory keep makes goes through the seam, with its parent flushed, and is
/// never a symbolic link.
@Suite("Durable directories")
struct DurableDirectoryTests {
    @Test("the data root is made through the seam, each new directory's parent flushed after it")
    func madeThroughTheSeamAndFlushed() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("share/keep")
        let calls = RecordingFileSystem()
        try DataRoot.makeDirectory(root, calls: calls)

        let made = calls.calls.filter { $0.operation == "makeDirectory" || $0.operation == "flushDirectory" }
        // share: made, then its parent flushed; keep: made, then share flushed; then keep itself.
        let share = directory.appending("share")
        for (made, parent) in [(share, directory.path), (root, share)] {
            let creation = try #require(calls.calls.lastIndex(of: .makeDirectory(made)), "\(made) not made: \(made)")
            let flush = try #require(calls.calls.lastIndex(of: .flushDirectory(parent)), "\(parent) never flushed")
            #expect(flush > creation, "\(parent) flushed before \(made) was made")
        }
        #expect(made.last == .flushDirectory(root))
        var status = stat()
        #expect(lstat(root, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)

        // Made already: fine, and nothing made again.
        calls.reset()
        try DataRoot.makeDirectory(root, calls: calls)
        #expect(!calls.calls.contains { $0.operation == "makeDirectory" && $0.path != root })
    }

    @Test("a data root that is a symbolic link is refused, never followed; a real directory is used")
    func aSymlinkedRootIsRefused() throws {
        let directory = try TemporaryDirectory()
        let elsewhere = directory.appending("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        let root = directory.appending("keep")
        try FileManager.default.createSymbolicLink(atPath: root, withDestinationPath: elsewhere)
        #expect {
            try DataRoot.makeDirectory(root)
        } throws: { error in
            [ELOOP, ENOTDIR].contains((error as? StorageError)?.errno) && "\(error)".contains("symbolic link")
        }
        // The pair: a real directory at that name is used as it is.
        try FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        try DataRoot.makeDirectory(root)
    }

    @Test("a failed write names the value's file, never the writer's temp file")
    func errorsNameTheTarget() async throws {
        let directory = try TemporaryDirectory()
        let calls = RecordingFileSystem { call in call.operation == "write" ? .fail(ENOSPC) : nil }
        let store = try FileStore(root: directory.path, calls: calls)
        do {
            try await store.write(StorageKey(.chats, "c1"), "hello")
            Issue.record("a write on a full disk succeeded")
        } catch {
            #expect(error.code == .full)
            #expect(error.path == directory.appending("store/chats/c1"), "\(error)")
            #expect(!error.description.contains(".keep-tmp-"), "\(error)")
        }
        // It would have seen the temp file: the write really went to one.
        #expect(calls.calls.contains { $0.operation == "write" && $0.path.contains("/.keep-tmp-") })
    }
}
