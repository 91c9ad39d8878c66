import Foundation
import KeepPorts
import Synchronization

/// Threads of the file stores' own, for the system calls that block for long: the flushes
/// of a write, a remove and a clear.
///
/// Blocking work stays off Swift's cooperative pool (one thread per core), where one wait
/// would stall every other task of the app. Keep has two ways to keep it off, and this is
/// the second: **the brief blocking calls of the file stores go to a pool, and at most one
/// of them at a time runs on its caller's thread.** (The first, `DedicatedThread` in
/// KeepPorts, is a thread of its own for what must stay on one thread or may wait without
/// bound: a SQLite connection, the Secret Service client, a lock wait.)
///
/// An `fsync` can block for milliseconds; concurrent writers flushing on the cooperative pool
/// would stall the app and really flush one or two at a time. So ``run(_:)`` lets at most
/// one job at a time block its caller's thread, which may be one of the pool's: the lone
/// write, which then pays no hand-over (on this project's machine a hand-over to another
/// thread and back costs about as much as a third of a flush). A job that arrives while one
/// runs there runs on one of these threads instead, its caller suspended, holding no thread.
/// So a flush may run on a cooperative thread, but never more than one flush at a time does.
///
/// Threads are made when jobs are waiting and every thread is busy, up to ``limit``, and
/// are kept, parked, for the next job: a thread that has flushed before flushes faster
/// than a new one, and a pool per store would make threads for every store a test opens.
/// So there is one pool per process, ``shared``, which keeps the promise that at most one
/// cooperative thread is ever blocked in these calls (every pool may block one caller's
/// thread; more pools would block more). Its only state is the queue of jobs.
package final class IOThreads: Sendable {
    /// The pool every file store uses unless given another.
    package static let shared = IOThreads(limit: 16)

    /// The most threads this pool makes; further jobs wait their turn.
    package let limit: Int

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var threads = 0
        var busy = 0
    }

    private let state = Mutex(State())
    /// Whether a job is running on its caller's thread right now.
    private let callerBusy = Atomic<Bool>(false)
    /// Signalled once per job queued; a parked thread waits on it.
    private let queued = DispatchSemaphore(value: 0)

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` and returns what it returned, or throws what it threw: on the caller's
    /// thread when no other job is running on a caller's thread, else on one of the pool's
    /// threads, the caller suspended meanwhile.
    package func run<Result: Sendable>(
        _ body: @escaping @Sendable () throws(StorageError) -> Result
    ) async throws(StorageError) -> Result {
        if callerBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            defer { callerBusy.store(false, ordering: .releasing) }
            return try body()
        }
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Swift.Result<Result, StorageError>, Never>) in
            submit { continuation.resume(returning: Swift.Result { () throws(StorageError) in try body() }) }
        }
        return try outcome.get()
    }

    /// Queues `job`, and makes a thread for it when every thread is busy or spoken for.
    private func submit(_ job: @escaping @Sendable () -> Void) {
        let makeThread = state.withLock { state in
            state.jobs.append(job)
            // Threads not busy are parked, or about to take a queued job: one more is needed
            // when the queue is longer than they are many.
            guard state.threads - state.busy < state.jobs.count, state.threads < limit else { return false }
            state.threads += 1
            return true
        }
        queued.signal()
        if makeThread {
            // Named from inside: on Linux a name given before start is not applied.
            Thread { [self] in
                Thread.current.name = "keep.io"
                work()
            }.start()
        }
    }

    /// A thread's life: take the next job, run it, park until the next; never ends.
    private func work() {
        while true {
            queued.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.jobs.isEmpty else { return nil }
                state.busy += 1
                return state.jobs.removeFirst()
            }
            guard let job else { continue }
            job()
            state.withLock { $0.busy -= 1 }
        }
    }
}
