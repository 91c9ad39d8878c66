import Foundation
import Synchronization

/// A task executor with one thread of its own, so a task that loops on blocking system calls
/// runs beside the shared cooperative pool (two threads on a two-core machine) instead of
/// taking one of them, and truly at the same time as the tasks on it.
///
/// Call ``stop()`` when done; the thread ends once the jobs already enqueued have run.
public final class DedicatedThread: TaskExecutor {
    private let jobs = Mutex<(queue: [UnownedJob], stopped: Bool)>(([], false))
    private let wakeUp = DispatchSemaphore(value: 0)

    /// Starts the thread; it waits for jobs until ``stop()``.
    public init() {
        Thread { self.run() }.start()
    }

    /// Runs `job` on this executor's thread, after the jobs already enqueued.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.queue.append(job) }
        wakeUp.signal()
    }

    /// Lets the thread finish once the jobs already enqueued have run.
    public func stop() {
        jobs.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    private func run() {
        while true {
            wakeUp.wait()
            let (job, stopped) = jobs.withLock { state in
                (state.queue.isEmpty ? nil : state.queue.removeFirst(), state.stopped)
            }
            if let job {
                job.runSynchronously(on: asUnownedTaskExecutor())
            } else if stopped {
                return
            }
        }
    }
}
