import Foundation
import KeepPorts
import Synchronization

/// Threads of their own that write together on demand: the raw floor for concurrent
/// writers, with no cooperative pool in the way.
///
/// The threads are made once and reused for every sample: on this kernel a flush from a
/// thread just created costs far more than one from a thread that has flushed before, and
/// the floor must not pay that. Each ``run()`` starts every thread on one round of `work`
/// and returns when all have finished, throwing the first error any of them met.
final class WriterThreads: Sendable {
    private let starts: [DispatchSemaphore]
    private let finished = DispatchSemaphore(value: 0)
    private let failures = Mutex<[StorageError]>([])
    private let stopping = Atomic<Bool>(false)

    /// `count` threads; a round runs `work(index)` on thread `index`.
    init(count: Int, _ work: @escaping @Sendable (Int) throws(StorageError) -> Void) {
        starts = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        for index in 0..<count {
            let start = starts[index]
            Thread { [self] in
                while true {
                    start.wait()
                    if stopping.load(ordering: .acquiring) { return }
                    do throws(StorageError) {
                        try work(index)
                    } catch {
                        failures.withLock { $0.append(error) }
                    }
                    finished.signal()
                }
            }.start()
        }
    }

    /// One round: every thread runs its work once, together.
    func run() throws(StorageError) {
        for start in starts { start.signal() }
        for _ in starts { finished.wait() }
        if let first = failures.withLock({ $0.first }) { throw first }
    }

    /// Lets the threads end.
    func stop() {
        stopping.store(true, ordering: .releasing)
        for start in starts { start.signal() }
    }
}
