import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own, as an executor: jobs run on it one at a time, in the order they came.
///
/// Blocking work stays off Swift's cooperative pool (one thread per core), where one wait
/// would stall every other task of the app. Keep has two ways to keep it off, and this is
/// the first: **what must stay on one thread, or may wait without bound, gets a thread of
/// its own.** A SQLite connection (an actor whose executor this is: a commit waits for the
/// disk, a busy wait for another process's lock), the Secret Service client (libsecret's
/// calls wait for D-Bus, and its connection is not thread-safe), a wait for a lock another
/// process holds (a thread for that wait alone), a test's loop of blocking calls
/// (`Task(executorPreference:)`). While the thread waits, only it waits; a caller awaiting it
/// holds no thread at all. The second way is the file stores' `IOThreads`: a pool for the
/// brief blocking calls of a write (the flushes), which may run the lone one on its caller.
///
/// The thread starts with the executor and ends after ``stop()``, once the jobs already
/// queued have run. Both a `SerialExecutor` (an actor's `unownedExecutor`) and a
/// `TaskExecutor` (a task's preference).
package final class DedicatedThread: SerialExecutor, TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopped = false
    }

    private let queue = Mutex(Queue())
    /// The thread, once it runs.
    private let running = Mutex<pthread_t?>(nil)
    /// Signalled once per job queued, and once by ``stop()``.
    private let ready = DispatchSemaphore(value: 0)

    /// Starts the thread, named `name` (what a debugger or `top -H` shows); it waits for
    /// jobs until ``stop()``.
    package init(name: String = "keep.thread") {
        Thread { [self] in
            // Named from inside: on Linux a name given before start is not applied, and a
            // thread otherwise carries the name of the thread that made it.
            Thread.current.name = name
            running.withLock { $0 = pthread_self() }
            runJobs()
        }.start()
    }

    /// Runs `job` on this thread, after the jobs already queued.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the caller runs on this thread.
    package var isCurrent: Bool {
        running.withLock { thread in thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Ends the thread once every job queued so far has run.
    package func stop() {
        queue.withLock { $0.stopped = true }
        ready.signal()
    }

    /// Runs `body` on this thread, after the jobs already queued, and answers what it
    /// answered; the caller is suspended meanwhile, holding no thread.
    package func run<Result: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        // Called from here, a function of no actor's, the operation is of no actor either: it
        // runs where the preference says, on this thread.
        let outcome = await withTaskExecutorPreference(self) { () async -> Swift.Result<Result, Failure> in
            Swift.Result { () throws(Failure) in try body() }
        }
        return try outcome.get()
    }

    /// Runs `body` on a new thread of its own and answers what it answered, the caller
    /// suspended meanwhile (holding no thread); the thread ends with it. For one wait that
    /// may last (a lock another process holds, a person typing), so that it holds up
    /// nothing else.
    package static func run<Result: Sendable, Failure: Error>(
        name: String, _ body: @escaping @Sendable () throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let thread = DedicatedThread(name: name)
        defer { thread.stop() }
        return try await thread.run(body)
    }

    /// The thread's life: run each job as it comes; end when stopped with nothing queued.
    private func runJobs() {
        while true {
            ready.wait()
            let next: UnownedJob? = queue.withLock { queue in
                queue.jobs.isEmpty ? nil : queue.jobs.removeFirst()
            }
            if let next {
                // A job of an actor on this executor runs as serial; a task preferring it, as a task.
                next.runSynchronously(
                    isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            } else if queue.withLock({ $0.stopped && $0.jobs.isEmpty }) {
                return
            }
        }
    }
}
