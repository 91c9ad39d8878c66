import Foundation
import KeepConformance
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The write path, seen through the calls the seam records and through faults it injects.
@Suite("The file store's write path")
struct WritePathTests {
    static let tempPrefix = ".keep-tmp-"

    @Test("the write path is write-temp-then-rename, with the data flushed first", arguments: [false, true])
    func theWritePathIsWriteTempThenRename(overwriting: Bool) async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        let key = StorageKey(.chats, "c1")
        if overwriting { try await store.write(key, "the old value") }
        recorder.reset()

        try await store.write(key, "the new value")
        try Self.expectAtomicReplace(
            recorder.calls, directory: directory.appending("store/chats"), name: "c1",
            byteCount: "the new value".utf8.count, replacing: overwriting)
        #expect(try await store.read(key) == "the new value")
    }

    @Test("creating a missing directory also flushes its parent")
    func creatingADirectoryFlushesItsParent() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("data/keep")
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: root, calls: recorder)
        try await store.write(StorageKey(.chats, "c1"), "v")
        try await store.write(StorageKey(.drafts, "d1"), "v")

        let calls = recorder.calls
        // A directory is tried first, and its missing parents made only when that fails.
        let made = Set(calls.filter { $0.operation == "makeDirectory" }.map(\.path))
        #expect(
            made == [directory.appending("data"), root, root + "/store", root + "/store/chats", root + "/store/drafts"])
        for path in made {
            let creation = try #require(calls.lastIndex(of: .makeDirectory(path)))
            let parent = (path as NSString).deletingLastPathComponent
            let flush = calls[creation...].firstIndex(of: .flushDirectory(parent))
            let renameInto = calls[creation...].firstIndex { call in
                if case .rename(_, let to) = call { return to.hasPrefix(path + "/") }
                return false
            }
            #expect(flush != nil, "the parent of \(path) was not flushed")
            if let flush, let renameInto { #expect(flush < renameInto, "\(path) flushed after a rename into it") }
        }
    }

    @Test("a write interrupted before the rename leaves the old value intact", arguments: Step.allCases)
    func aWriteInterruptedBeforeTheRenameLeavesTheOldValue(_ step: Step) async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let observer = try FileStore(root: directory.path)
        let key = StorageKey(.chats, "c1")
        try await observer.write(key, "the old value")

        let recorder = RecordingFileSystem { call in
            call.operation == step.rawValue && Self.isTemp(call.path) ? .kill : nil
        }
        let writer = try FileStore(root: directory.path, calls: recorder)
        await #expect(throws: StorageError.self) {
            try await writer.write(key, String(repeating: "new ", count: 50_000))
        }
        #expect(recorder.killed)

        #expect(try await observer.read(key) == "the old value")
        #expect(try await observer.listIds(.chats) == ["c1"])
        let leftovers = RawDisk.names(chats).filter(Self.isTemp)
        // The positive: a writer killed after its create really left its temp file there.
        #expect(leftovers.count == (step == .create ? 0 : 1), "leftovers: \(leftovers)")

        // The next opening sweeps the dead writer's temp; the old value is still there.
        let reopened = try FileStore(root: directory.path)
        #expect(RawDisk.names(chats) == ["c1"])
        #expect(try await reopened.read(key) == "the old value")
    }

    @Test("stale temp files are swept at open: a dead writer's, never a live one's")
    func staleTempFilesAreSweptAtOpen() async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "c1"), "value")

        // A dead writer: killed before its rename, its temp file left behind, its lock gone.
        let dying = RecordingFileSystem { $0.operation == "rename" ? .kill : nil }
        await #expect(throws: StorageError.self) {
            try await FileStore(root: directory.path, calls: dying).write(StorageKey(.chats, "c1"), "lost")
        }
        let dead = try #require(RawDisk.names(chats).first(where: Self.isTemp))

        // A live writer: its temp created and locked, its write still under way.
        let live = POSIXFileSystem()
        let liveName = Self.tempPrefix + "11111111111111111111111111111111"
        let liveFile = try live.create(chats + "/" + liveName, mode: 0o600)
        #expect(try live.tryLock(liveFile))
        // Someone else's dot file is not a temp file of ours.
        try RawDisk.plant(chats + "/.keep-notes", Array("not ours".utf8))

        _ = try FileStore(root: directory.path)
        let after = RawDisk.names(chats)
        #expect(!after.contains(dead), "the dead writer's temp survived the sweep")
        #expect(after.contains(liveName), "a live writer's temp was swept")
        #expect(after.contains(".keep-notes"))

        // Once the live writer is gone too, its temp is swept at the next open.
        try live.close(liveFile)
        _ = try FileStore(root: directory.path)
        #expect(RawDisk.names(chats) == [".keep-notes", "c1"])
        #expect(try await store.read(StorageKey(.chats, "c1")) == "value")
    }

    @Test(
        "a writer whose temp file a sweep takes before it locks it starts again under a new name",
        arguments: [SweepRace.sweptAlready, .sweepHoldsTheLock])
    func aWriterWhoseTempIsSweptStartsAgain(_ race: SweepRace) async throws {
        let directory = try TemporaryDirectory()
        let live = POSIXFileSystem()
        let first = Flag()
        let held = Held()
        let recorder = RecordingFileSystem { call in
            // Between the writer's create and its lock, a sweep opens the temp and locks it,
            // and (already done) unlinks it too.
            if call.operation == "tryLock", Self.isTemp(call.path), first.setFirst() {
                if let file = try? live.open(call.path), (try? live.tryLock(file)) == true {
                    held.file = file
                    if race == .sweptAlready {
                        try? live.unlink(call.path)
                        try? live.close(file)
                        held.file = nil
                    }
                }
            }
            return nil
        }
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "c0"), "makes the directory")
        try await FileStore(root: directory.path, calls: recorder).write(StorageKey(.chats, "c1"), "written anyway")
        if let file = held.file { try live.close(file) }

        let creates = recorder.calls.filter { $0.operation == "create" }.map(\.path)
        #expect(creates.count == 2, "creates: \(creates)")
        #expect(Set(creates).count == creates.count, "a temp name was used twice")
        #expect(try await store.read(StorageKey(.chats, "c1")) == "written anyway")
        _ = try FileStore(root: directory.path)
        #expect(RawDisk.names(directory.appending("store/chats")) == ["c0", "c1"])
    }

    @Test("an fsync that fails with EIO abandons the temp file and throws, never retried")
    func anFsyncEIOAbandonsTheTemp() async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let key = StorageKey(.chats, "c1")
        try await FileStore(root: directory.path).write(key, "the old value")
        let recorder = RecordingFileSystem { call in
            call.operation == "flush" && Self.isTemp(call.path) ? .fail(EIO) : nil
        }
        let store = try FileStore(root: directory.path, calls: recorder)

        let error = await #expect(throws: StorageError.self) { try await store.write(key, "the new value") }
        #expect(error?.code == .io)
        #expect(error?.errno == EIO)
        let calls = recorder.calls
        #expect(calls.filter { $0.operation == "flush" }.count == 1, "the flush was retried")
        #expect(!calls.contains { $0.operation == "rename" }, "a failed flush went on to the rename")
        let temp = try #require(calls.first { $0.operation == "create" }?.path)
        #expect(calls.contains(.unlink(temp)), "the temp file was not abandoned")
        #expect(RawDisk.names(chats) == ["c1"])
        #expect(try await store.read(key) == "the old value")
    }

    @Test("a failed system call is a typed error that leaves the old value", arguments: Fault.all)
    func aFailedCallLeavesTheOldValue(_ fault: Fault) async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let key = StorageKey(.chats, "c1")
        try await FileStore(root: directory.path).write(key, "the old value")
        let recorder = RecordingFileSystem { call in
            call.operation == fault.operation && Self.isTemp(call.path) ? .fail(fault.errno) : nil
        }
        let store = try FileStore(root: directory.path, calls: recorder)
        let secret = "sk-must-not-appear-in-any-error"

        let error = await #expect(throws: StorageError.self) { try await store.write(key, secret) }
        #expect(error?.code == fault.code)
        #expect(error?.errno == fault.errno)
        // The error names the file it failed on (the scan sees the path) and never the value.
        #expect(error?.description.contains(chats) == true)
        #expect(error?.description.contains(secret) == false)
        #expect(try await store.read(key) == "the old value")
        #expect(RawDisk.names(chats) == ["c1"], "a temp file was left behind")
    }

    @Test("a failed flush of the directory after the rename is reported, not swallowed")
    func aFailedDirectoryFlushIsReported() async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem { $0.operation == "flushDirectory" ? .fail(EIO) : nil }
        let store = try FileStore(root: directory.path, calls: recorder)
        try RawDisk.plant(directory.appending("store/chats/c1"), Array("the old value".utf8))
        let error = await #expect(throws: StorageError.self) { try await store.write(StorageKey(.chats, "c1"), "new") }
        #expect(error?.code == .io)
        #expect(error?.path == directory.appending("store/chats"))
    }

    @Test("a directory that cannot be created is a typed error, and nothing is listed", arguments: [EACCES, ENOSPC])
    func aDirectoryThatCannotBeCreated(_ errno: Int32) async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem { $0.operation == "makeDirectory" ? .fail(errno) : nil }
        let store = try FileStore(root: directory.path, calls: recorder)
        let error = await #expect(throws: StorageError.self) { try await store.write(StorageKey(.drafts, "d"), "v") }
        #expect(error?.code == StorageError.Code(errno: errno))
        #expect(error?.operation == "makeDirectory")
        #expect(try await store.listIds(.drafts) == [])
        #expect(RawDisk.tree(directory.path) == [])
    }

    @Test("a removal is flushed to its directory, and removing an absent key touches nothing")
    func aRemovalIsFlushed() async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        try await store.write(StorageKey(.chats, "c1"), "v")
        recorder.reset()
        try await store.remove(StorageKey(.chats, "c1"))
        #expect(recorder.calls == [.unlink(chats + "/c1"), .flushDirectory(chats)])
        recorder.reset()
        try await store.remove(StorageKey(.chats, "c1"))
        try await store.remove(StorageKey(.settings, "never"))
        #expect(recorder.calls == [.unlink(chats + "/c1"), .unlink(directory.appending("store/settings/never"))])
    }

    @Test("clear removes the namespace's values with one flush, and leaves what is not a value")
    func clearRemovesOnlyValues() async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        for id in ["a", "B", "c d"] { try await store.write(StorageKey(.chats, id), "v") }
        try await store.write(StorageKey(.drafts, "a"), "draft")
        let foreign = ["README", ".keep-tmp-abc", "~2E"]
        for name in foreign { try RawDisk.plant(chats + "/" + name, Array("not a value".utf8)) }
        recorder.reset()

        try await store.clear(.chats)
        #expect(recorder.calls.filter { $0.operation == "unlink" }.count == 3)
        #expect(recorder.calls.filter { $0.operation == "flushDirectory" } == [.flushDirectory(chats)])
        #expect(try await store.listIds(.chats) == [])
        #expect(RawDisk.names(chats) == foreign.sorted())
        #expect(try await store.read(StorageKey(.drafts, "a")) == "draft")
    }

    // MARK: - Shared with the legacy store's tests

    /// Checks that `calls` replaced `directory/name` the atomic way: a new temp file beside
    /// it, locked, written, flushed, renamed over it, and the directory flushed; the target
    /// itself never opened for writing, written or removed, and, when it was `replacing` a
    /// file, that file locked across the rename.
    static func expectAtomicReplace(
        _ calls: [FileSystemCall], directory: String, name: String, byteCount: Int, replacing: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let target = directory + "/" + name
        let renameIndex = try #require(
            calls.firstIndex { if case .rename(_, let to) = $0 { return to == target } else { return false } },
            "no rename onto \(target) in \(calls)", sourceLocation: sourceLocation)
        let temp = calls[renameIndex].path
        #expect((temp as NSString).deletingLastPathComponent == directory, sourceLocation: sourceLocation)
        #expect(isTemp(temp), "\(temp) does not start with \(tempPrefix)", sourceLocation: sourceLocation)

        let order: [FileSystemCall] = [
            .create(temp), .tryLock(temp), .write(temp, count: byteCount), .flush(temp),
            .rename(temp, to: target), .close(temp), .flushDirectory(directory),
        ]
        let positions = order.map { calls.firstIndex(of: $0) }
        #expect(
            !positions.contains(nil), "missing: \(zip(order, positions).filter { $0.1 == nil }.map(\.0))",
            sourceLocation: sourceLocation)
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "out of order: \(order)", sourceLocation: sourceLocation)
        #expect(calls.filter { $0 == .flush(temp) }.count == 1, sourceLocation: sourceLocation)
        // The file replaced, when there is one, is locked (read-only) just before the rename
        // and released after it, so an append under way finishes in it first.
        if replacing {
            let opened = calls.firstIndex(of: .open(target)) ?? renameIndex
            let locked = calls.firstIndex(of: .lock(target))
            let released = calls.lastIndex(of: .close(target))
            #expect(
                locked.map { opened < $0 && $0 < renameIndex } == true && released.map { $0 > renameIndex } == true,
                "the replaced file was not locked across the rename: \(calls)", sourceLocation: sourceLocation)
        }
        // Reading the target is fine (the legacy store reads before it rewrites), and so is
        // locking it; writing it is not.
        let readOnly: Set = ["readFile", "open", "lock", "status", "close"]
        let onTarget = calls.filter { $0.path == target && !readOnly.contains($0.operation) }
        #expect(onTarget.isEmpty, "the target was touched directly: \(onTarget)", sourceLocation: sourceLocation)
    }

    static func isTemp(_ path: String) -> Bool {
        (path.split(separator: "/").last ?? "").hasPrefix(tempPrefix)
    }

    /// A step of the write path a writer can be killed at, before its rename completes.
    enum Step: String, CaseIterable, Sendable {
        case create, tryLock, write, flush, rename
    }

    enum SweepRace: Sendable { case sweptAlready, sweepHoldsTheLock }

    /// An errno injected at one call of the write path, and the code it must become.
    struct Fault: Sendable, CustomTestStringConvertible {
        let operation: String
        let errno: Int32
        let code: StorageError.Code

        static let all: [Fault] = [
            Fault(operation: "create", errno: EACCES, code: .unavailable),
            Fault(operation: "create", errno: ENOSPC, code: .full),
            Fault(operation: "create", errno: EROFS, code: .unavailable),
            Fault(operation: "write", errno: ENOSPC, code: .full),
            Fault(operation: "write", errno: EDQUOT, code: .full),
            Fault(operation: "write", errno: EIO, code: .io),
            Fault(operation: "flush", errno: EIO, code: .io),
            Fault(operation: "flush", errno: ENOSPC, code: .full),
            Fault(operation: "rename", errno: EACCES, code: .unavailable),
            Fault(operation: "rename", errno: EPERM, code: .unavailable),
            Fault(operation: "rename", errno: EIO, code: .io),
            Fault(operation: "tryLock", errno: ENOLCK, code: .io),
        ]

        var testDescription: String { "\(operation) fails with errno \(errno)" }
    }

    /// A file a test hands from the plan closure back to its body.
    final class Held: Sendable {
        private let state = Mutex<OpenFile?>(nil)

        var file: OpenFile? {
            get { state.withLock { $0 } }
            set { state.withLock { $0 = newValue } }
        }
    }
}
