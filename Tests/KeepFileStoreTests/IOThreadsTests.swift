import Dispatch
import KeepPorts
import Synchronization
import Testing

@testable import KeepFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Serialized: each test's pool lets one job block its caller's thread, and the machine may
// have only two cooperative threads; tests running side by side could block them all.
@Suite("The file stores' own threads", .serialized)
struct IOThreadsTests {
    /// When a test stops waiting for something that must happen, and fails: a guard
    /// against a hang, never a wait for timing.
    ///
    /// Generous: the jobs of a test need a cooperative thread to be started, and the whole
    /// suite runs beside them on two, some of its tests busy for many seconds at a time.
    static func hangGuard() -> DispatchTime { .now() + 300 }

    /// Something that happens once, awaited without holding a thread: a test must not block
    /// one of the two cooperative threads it shares with the jobs it starts.
    final class Event: Sendable {
        private let state = Mutex<(happened: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func happen() {
            let waiting = state.withLock { state in
                state.happened = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in waiting { waiter.resume() }
        }

        func wait() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let happened = state.withLock { state in
                    if !state.happened { state.waiting.append(waiter) }
                    return state.happened
                }
                if happened { waiter.resume() }
            }
        }
    }

    /// A count shared by the jobs of one test.
    final class Arrivals: Sendable {
        let count = Atomic<Int>(0)
    }

    @Test("a job blocked in a call never keeps the next one from running")
    func aBlockedJobDoesNotHoldUpTheNext() async throws {
        let threads = IOThreads(limit: 2)
        let started = Event()
        let release = DispatchSemaphore(value: 0)
        // Blocked on a thread of its own, never on one the other tests share (see below).
        let caller = DedicatedThread()
        defer { caller.stop() }
        let first = Task(executorPreference: caller) {
            try await threads.run { () throws(StorageError) in
                started.happen()
                _ = release.wait(timeout: Self.hangGuard())  // blocked, as in a slow fsync
                return 1
            }
        }
        await started.wait()
        // With the first job still blocked, a second one runs to its end.
        let second = try await threads.run { () throws(StorageError) in 2 }
        #expect(second == 2)
        release.signal()
        #expect(try await first.value == 1)
    }

    @Test("as many jobs as the pool has threads, and one more on its caller's, block at once")
    func jobsBlockTogether() async throws {
        let limit = 4
        let threads = IOThreads(limit: limit)
        let arrived = Arrivals()
        let allThere = DispatchSemaphore(value: 0)
        // The callers on threads of their own: the job that runs on its caller's thread then
        // blocks that thread, never one of the two cooperative threads every other test
        // shares (blocking one of them while another test's job blocks the other starved
        // the pool until the hang guard, in a full run).
        let callers = (0..<(limit + 1)).map { _ in DedicatedThread() }
        defer { callers.forEach { $0.stop() } }
        // Each job waits until every job has arrived: only jobs running at the same time,
        // on threads of their own, can all get past this.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in callers {
                group.addTask(executorPreference: caller) {
                    try await threads.run { () throws(StorageError) in
                        if arrived.count.add(1, ordering: .acquiringAndReleasing).newValue == limit + 1 {
                            for _ in 0..<(limit + 1) { allThere.signal() }
                        }
                        guard allThere.wait(timeout: Self.hangGuard()) == .success else {
                            throw StorageError(code: .io, operation: "wait", reason: "the jobs never ran together")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(arrived.count.load(ordering: .acquiring) == limit + 1)
    }

    @Test("a job's error reaches its caller, typed, on the pool's threads as on the caller's")
    func errorsReachTheCaller() async throws {
        let threads = IOThreads(limit: 1)
        let release = DispatchSemaphore(value: 0)
        let started = Event()
        // The first job holds the caller's-thread place, so the second runs on the pool; it
        // blocks a thread of its own, never one the other tests share.
        let caller = DedicatedThread()
        defer { caller.stop() }
        let holder = Task(executorPreference: caller) {
            try await threads.run { () throws(StorageError) in
                started.happen()
                _ = release.wait(timeout: Self.hangGuard())
                throw StorageError.system("fsync", path: "/held", errno: EIO)
            }
        }
        await started.wait()
        do {
            try await threads.run { () throws(StorageError) in
                throw StorageError.system("rename", path: "/pooled", errno: ENOSPC)
            }
            Issue.record("the pooled job's error was lost")
        } catch {
            #expect(error.code == .full && error.path == "/pooled")
        }
        release.signal()
        do {
            try await holder.value
            Issue.record("the caller's job's error was lost")
        } catch let error as StorageError {
            #expect(error.code == .io && error.errno == EIO)
        }
    }
}
