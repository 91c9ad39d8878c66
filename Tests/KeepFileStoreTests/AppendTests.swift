import Dispatch
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

/// The file store's append, seen through the calls it makes, the faults it meets, and the
/// races it runs with a whole write.
@Suite("The file store's append")
struct AppendTests {
    static let key = StorageKey(.chats, "c1")

    @Test("the file store honours the append contract", arguments: AppendContract.cases)
    func honoursTheAppendContract(_ rule: AppendContract.Case) async throws {
        let directory = try TemporaryDirectory()
        try await rule.check { try FileStore(root: directory.appending(UUID().uuidString)) }
    }

    @Test("an append opens the file, locks it, writes the line at the end and flushes the file, and no directory")
    func theAppendPath() async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        try await store.write(Self.key, "head\n")
        recorder.reset()

        #expect(try await store.append(Self.key) { _ in "a line" })
        let file = directory.appending("store/chats/c1")
        #expect(
            recorder.calls == [
                .openForAppending(file), .lock(file), .status(file), .read(file, count: 5, at: 0),
                .write(file, count: 7), .flush(file), .close(file),
            ])
        #expect(try await store.read(Self.key) == "head\na line\n")
    }

    @Test("an append cuts an unfinished last line, and makes the cut durable before it writes its own")
    func anUnfinishedLineIsCutFirst() async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        try await store.write(Self.key, "head\nhalf a li")
        recorder.reset()

        let offsets = Log<Int>()
        #expect(
            try await store.append(Self.key) { offset in
                offsets.add(offset)
                return "next"
            })
        let file = directory.appending("store/chats/c1")
        let calls = recorder.calls
        let cut = try #require(calls.firstIndex(of: .truncate(file, to: 5)))
        let cutFlushed = try #require(calls[cut...].firstIndex(of: .flush(file)))
        let written = try #require(calls.firstIndex(of: .write(file, count: 5)))
        #expect(cut < cutFlushed && cutFlushed < written, "\(calls)")
        #expect(calls.filter { $0 == .flush(file) }.count == 2)
        #expect(offsets.entries == [5], "the offset is where the line starts, after the cut")
        #expect(try await store.read(Self.key) == "head\nnext\n")
    }

    @Test("an append reads back only the value's last line to find where it ends, however long the value")
    func anAppendReadsOnlyTheLastLine() async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        let long = String(repeating: String(repeating: "x", count: 999) + "\n", count: 2_000)
        try await store.write(Self.key, long + "the last line\n")
        recorder.reset()
        #expect(try await store.append(Self.key) { _ in "one more" })
        let read = recorder.calls.reduce(0) { total, call in
            if case .read(_, let count, _) = call { return total + count }
            return total
        }
        #expect(read <= 32 << 10, "an append read \(read) bytes of a \(long.utf8.count)-byte value")
        #expect(try await store.read(Self.key) == long + "the last line\none more\n")
    }

    @Test(
        "an append to a symbolic link, a directory or a FIFO is that name's problem, and follows nothing",
        arguments: ["link", "directory", "fifo"])
    func anAppendToWhatIsNotAFile(_ kind: String) async throws {
        let directory = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "made"), "x\n")
        let path = directory.appending("store/chats/c1")
        let target = elsewhere.appending("target")
        try RawDisk.plant(target, Array("theirs\n".utf8))
        switch kind {
        case "link": #expect(symlink(target, path) == 0)
        case "directory": #expect(mkdir(path, 0o700) == 0)
        default: #expect(mkfifo(path, 0o600) == 0)
        }
        let error = await #expect(throws: StorageError.self) { try await store.append(Self.key) { _ in "mine" } }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        #expect(error?.isOneFilesProblem == true)
        #expect(RawDisk.bytes(target) == Array("theirs\n".utf8), "the append followed the link")
    }

    @Test("a value whose unfinished last line ends in half a character reads as its finished lines")
    func halfACharacterInTheUnfinishedLine() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        try await store.write(Self.key, "héad\n")
        let file = directory.appending("store/chats/c1")
        // A power cut mid-append: `é` cut after its first byte, then a sector of zeros.
        try RawDisk.plant(file, Array("héad\nnext lin".utf8) + [0xC3, 0, 0, 0])
        #expect(try await store.read(Self.key) == "héad\n")
        #expect(try await store.append(Self.key) { _ in "next line" })
        #expect(try await store.read(Self.key) == "héad\nnext line\n")
        // The pair: bytes that are not text among the finished lines are damage, as before.
        try RawDisk.plant(file, [0xC3, 0x0A] + Array("fine\n".utf8))
        let error = await #expect(throws: StorageError.self) { try await store.read(Self.key) }
        #expect(error?.code == .corrupt)
    }

    @Test("a failed flush of an append is never retried into success: the line is cut back and the error thrown")
    func aFailedFlushCutsTheLineBack() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.appending("store/chats/c1")
        try await FileStore(root: directory.path).write(Self.key, "head\n")
        let recorder = RecordingFileSystem { $0 == .flush(file) ? .fail(EIO) : nil }
        let store = try FileStore(root: directory.path, calls: recorder)

        let error = await #expect(throws: StorageError.self) { try await store.append(Self.key) { _ in "lost" } }
        #expect(error?.errno == EIO)
        #expect(recorder.calls.filter { $0 == .flush(file) }.count == 1, "the flush was retried")
        #expect(recorder.calls.contains(.truncate(file, to: 5)), "the line was not cut back")
        #expect(RawDisk.bytes(file) == Array("head\n".utf8))
    }

    @Test(
        "an append racing a whole write of its key is never lost: the line goes into the file that has the name",
        arguments: [false, true])
    func anAppendAfterARenameReopensTheFile(ignoringReplacement: Bool) async throws {
        let directory = try TemporaryDirectory()
        let file = directory.appending("store/chats/c1")
        let writer = try FileStore(root: directory.path)
        try await writer.write(Self.key, "old\n")
        let raced = Flag()
        let thread = DedicatedThread()
        defer { thread.stop() }
        // Just before the appender waits for its lock, a whole write of the key renames a new
        // file over the one it opened: the file it then locks has no name.
        let racing = RecordingFileSystem { call in
            if call == .lock(file), raced.setFirst() {
                let done = DispatchSemaphore(value: 0)
                let writing = Task(executorPreference: thread) {
                    try? await writer.write(Self.key, "new\n")
                    done.signal()
                }
                _ = writing
                done.wait()
            }
            return nil
        }
        let calls: any FileSystemCalls = ignoringReplacement ? LinkCountIgnored(base: racing) : racing
        let appender = try FileStore(root: directory.path, calls: calls)
        #expect(try await appender.append(Self.key) { _ in "appended" })
        #expect(raced.isSet)
        let value = try await writer.read(Self.key)
        if ignoringReplacement {
            // The pair: an appender that does not look whether its file still has a name puts
            // the line where no one will read it, and the check above would have seen it.
            #expect(value == "new\n", "the race did not happen")
        } else {
            #expect(value == "new\nappended\n")
            #expect(racing.calls.filter { $0 == .openForAppending(file) }.count == 2, "the file was not reopened")
        }
    }

    @Test(
        "a whole write waits for an append under way in the file it replaces",
        arguments: [WriteMutant?.none, .noAppendLock])
    func aWriteWaitsForAnAppendUnderWay(_ mutant: WriteMutant?) async throws {
        let directory = try TemporaryDirectory()
        let file = directory.appending("store/chats/c1")
        try await FileStore(root: directory.path).write(Self.key, "old\n")
        let order = Log<String>()
        let writerAtItsLock = DispatchSemaphore(value: 0)
        let writerCalls = RecordingFileSystem { call in
            if call == .lock(file) { writerAtItsLock.signal() }
            return nil
        }
        let writer = try FileStore(
            root: directory.path, calls: mutant.map { NoLock(base: writerCalls, mutant: $0) } ?? writerCalls)
        let thread = DedicatedThread()
        defer { thread.stop() }
        let started = Flag()
        // The appender holds its lock and is about to write its line when the write begins;
        // it goes on once the writer waits for that lock, or, without one, is done.
        let appenderCalls = RecordingFileSystem { call in
            // Its line written and flushed: the append is done but for releasing its lock.
            if call == .close(file) { order.add("append done") }
            if case .write(file, _) = call, started.setFirst() {
                let writing = Task(executorPreference: thread) {
                    try? await writer.write(Self.key, "new\n")
                    order.add("write returned")
                    writerAtItsLock.signal()
                }
                _ = writing
                writerAtItsLock.wait()
            }
            return nil
        }
        let appender = try FileStore(root: directory.path, calls: appenderCalls)
        #expect(try await appender.append(Self.key) { _ in "appended" })
        while order.entries.count < 2 { await Task.yield() }
        let sequence = order.entries
        let value = try await appender.read(Self.key)
        if mutant == nil {
            #expect(sequence == ["append done", "write returned"], "the write did not wait for the append")
            #expect(value == "new\n")
        } else {
            // The pair: a writer that takes no lock renames before the line lands and returns
            // first; the append, acknowledged after it, left its line in no file with a name.
            #expect(sequence == ["write returned", "append done"])
            #expect(value == "new\n")
        }
    }
}

/// Calls whose `status` says a file still has a name when it has none: an appender that
/// never looks whether a rename replaced its file.
private final class LinkCountIgnored: ForwardingFileSystemCalls {
    let base: any FileSystemCalls

    init(base: any FileSystemCalls) { self.base = base }

    func status(_ file: OpenFile) throws(StorageError) -> FileStatus {
        let status = try base.status(file)
        return FileStatus(
            kind: status.kind, size: status.size, modified: status.modified, inode: status.inode,
            linkCount: max(1, status.linkCount))
    }
}

/// Calls that take no waiting lock, as ``WriteMutant/noAppendLock`` has it.
private final class NoLock: ForwardingFileSystemCalls {
    let base: any FileSystemCalls
    let mutant: WriteMutant

    init(base: any FileSystemCalls, mutant: WriteMutant) {
        self.base = base
        self.mutant = mutant
    }

    func lock(_ file: OpenFile) throws(StorageError) {
        if mutant != .noAppendLock { try base.lock(file) }
    }
}

/// What a test's closures noted, in order.
private final class Log<Entry: Sendable>: Sendable {
    private let state = Mutex<[Entry]>([])

    func add(_ entry: Entry) { state.withLock { $0.append(entry) } }

    var entries: [Entry] { state.withLock { $0 } }
}
