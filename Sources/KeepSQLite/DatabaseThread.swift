import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thread one ``SQLiteDatabase`` runs on: a serial executor with a thread of its own.
///
/// SQLite blocks the thread that calls it: a commit under `synchronous=FULL` waits for the
/// disk, and a connection that finds the database locked by another process sleeps in its
/// busy handler for up to its timeout. On Swift's cooperative pool (one thread per core)
/// such a wait would stall every other task of the app. So each database's actor runs its
/// jobs here instead, one at a time and in the order they came: while SQLite waits, only
/// this thread waits, and a caller awaiting the database holds no thread at all.
///
/// The thread starts with the executor and ends after ``stop()``, once the jobs already
/// queued have run.
final class DatabaseThread: SerialExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopped = false
    }

    private let queue = Mutex(Queue())
    /// The thread, once it runs.
    private let running = Mutex<pthread_t?>(nil)
    /// Signalled once per job queued, and once by ``stop()``.
    private let ready = DispatchSemaphore(value: 0)

    init(name: String) {
        Thread { [self] in
            // Named from inside: on Linux a name given before start is not applied, and a
            // thread otherwise carries the name of the thread that made it.
            Thread.current.name = name
            running.withLock { $0 = pthread_self() }
            runJobs()
        }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrent: Bool {
        running.withLock { thread in thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Ends the thread once every job queued so far has run.
    func stop() {
        queue.withLock { $0.stopped = true }
        ready.signal()
    }

    /// The thread's life: run each job as it comes; end when stopped with nothing queued.
    private func runJobs() {
        while true {
            ready.wait()
            let next: UnownedJob? = queue.withLock { queue in
                queue.jobs.isEmpty ? nil : queue.jobs.removeFirst()
            }
            if let next {
                next.runSynchronously(on: asUnownedSerialExecutor())
            } else if queue.withLock({ $0.stopped && $0.jobs.isEmpty }) {
                return
            }
        }
    }
}
