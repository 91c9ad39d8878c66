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

/// Group commit, seen through the calls the seam records: writes in flight together in one
/// directory share its flush, a write renamed after a flush began waits for the next one,
/// and a lone write flushes for itself.
@Suite("The file store's group commit")
struct GroupCommitTests {
    @Test("a lone write flushes its directory itself, once, right after its rename")
    func aLoneWriteFlushesItself() async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        try await store.write(StorageKey(.chats, "c0"), "makes the directory")
        for index in 1...3 {
            recorder.reset()
            try await store.write(StorageKey(.chats, "c\(index)"), "value \(index)")
            let calls = recorder.calls
            #expect(calls.filter { $0.operation == "flushDirectory" } == [.flushDirectory(chats)])
            // Nothing but the close of the renamed temp between the rename and the flush.
            let rename = try #require(calls.firstIndex { $0.operation == "rename" })
            #expect(calls[(rename + 1)...].map(\.operation) == ["close", "flushDirectory"])
        }
    }

    @Test("writes renamed while a flush runs share the next flush, and none returns before it")
    func writesRenamedDuringAFlushShareTheNext() async throws {
        let run = try await Batch.run(failing: false)
        let flushes = run.calls.indices.filter { run.calls[$0] == .flushDirectory(run.chats) }
        // The leader's own flush, then one for both followers: three writes, two flushes.
        #expect(flushes.count == 2, "\(run.calls)")
        let second = try #require(flushes.last)
        for id in Batch.followers {
            let rename = try #require(run.calls.firstIndex { $0 == .rename($0.path, to: run.chats + "/" + id) })
            // Renamed while the first flush was held open (the followers start only then), and
            // covered by the second, which began after the rename.
            #expect(rename < second, "\(id) was renamed after the flush meant to cover it")
            // Acknowledged only once the flush that began after its rename was done.
            let returned = try #require(run.returnedAfter[id])
            #expect(returned > second, "\(id) returned after \(returned) calls, before the flush at \(second)")
            #expect(run.errors[id] == nil)
        }
        let reader = try FileStore(root: run.directory.path)
        for id in [Batch.leader] + Batch.followers {
            #expect(try await reader.read(StorageKey(.chats, id)) == "new \(id)")
        }
    }

    @Test("a shared flush that fails fails every write it covered, and the next write flushes afresh")
    func aFailedSharedFlushFailsItsBatch() async throws {
        let run = try await Batch.run(failing: true)
        #expect(run.errors[Batch.leader] == nil, "the leader's own flush succeeded")
        for id in Batch.followers {
            #expect(run.errors[id]?.errno == EIO, "\(id): \(String(describing: run.errors[id]))")
            #expect(run.errors[id]?.operation == "flushDirectory")
        }
        // The failure is not carried over: a later write leads a flush of its own, and succeeds.
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: run.directory.path, calls: recorder)
        try await store.write(StorageKey(.chats, "later"), "after the failure")
        #expect(recorder.calls.filter { $0.operation == "flushDirectory" } == [.flushDirectory(run.chats)])
    }

    /// One leader whose directory flush is held open until two followers have renamed and
    /// are waiting; the second flush (the followers') can be made to fail with `EIO`. The
    /// recorder records a call once its plan has let it through, so the held flush is
    /// recorded after the followers' renames, though it began before them.
    struct Batch {
        static let leader = "leader"
        static let followers = ["follower-1", "follower-2"]

        let directory: TemporaryDirectory
        let chats: String
        let calls: [FileSystemCall]
        /// How many calls had been recorded when each write returned or threw.
        let returnedAfter: [String: Int]
        let errors: [String: StorageError]

        static func run(failing: Bool) async throws -> Batch {
            let directory = try TemporaryDirectory()
            let chats = directory.appending("store/chats")
            let inFirstFlush = Flag()
            let release = DispatchSemaphore(value: 0)
            let flushes = Counter()
            let recorder = RecordingFileSystem { call in
                guard call == .flushDirectory(chats) else { return nil }
                let number = flushes.next()
                if number == 1 {
                    // The leader's flush stays under way until the followers wait behind it.
                    inFirstFlush.set()
                    release.wait()
                }
                return number == 2 && failing ? .fail(EIO) : nil
            }
            let commit = GroupCommit()
            let store = try FileStore(root: directory.path, calls: POSIXFileSystem(), flushing: commit)
            try await store.write(StorageKey(.chats, "c0"), "makes the directory")
            let recorded = try FileStore(root: directory.path, calls: recorder, flushing: commit)

            let outcomes = Outcomes()
            let write: @Sendable (String) async -> Void = { id in
                do throws(StorageError) {
                    try await recorded.write(StorageKey(.chats, id), "new \(id)")
                    outcomes.record(id, after: recorder.calls.count, nil)
                } catch {
                    outcomes.record(id, after: recorder.calls.count, error)
                }
            }
            // The leader blocks in its flush, so it runs on a thread of its own, not the pool's.
            let thread = DedicatedThread()
            defer { thread.stop() }
            let leading = Task(executorPreference: thread) { await write(Self.leader) }
            while !inFirstFlush.isSet { await Task.yield() }
            let followerTasks = followers.map { id in Task { await write(id) } }
            // Until both followers wait for the next flush (or one returned: the failure to see).
            while commit.waiting(in: chats) < followers.count, outcomes.returned.isEmpty {
                await Task.yield()
            }
            release.signal()
            await leading.value
            for task in followerTasks { await task.value }
            return Batch(
                directory: directory, chats: chats, calls: recorder.calls, returnedAfter: outcomes.returned,
                errors: outcomes.errors)
        }
    }
}

/// How each write of a ``GroupCommitTests/Batch`` ended: after how many recorded calls, and
/// with which error.
final class Outcomes: Sendable {
    private let state = Mutex<(returned: [String: Int], errors: [String: StorageError])>(([:], [:]))

    func record(_ id: String, after calls: Int, _ error: StorageError?) {
        state.withLock { state in
            state.returned[id] = calls
            state.errors[id] = error
        }
    }

    var returned: [String: Int] { state.withLock { $0.returned } }
    var errors: [String: StorageError] { state.withLock { $0.errors } }
}

/// A count several threads can take the next number of.
final class Counter: Sendable {
    private let value = Mutex(0)

    /// Adds one, and answers the new count.
    @discardableResult
    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }

    var count: Int { value.withLock { $0 } }
}
