import KeepFileStore
import KeepPorts
import Synchronization

/// A broken group commit, the mistake group commit invites: a writer that finds a flush of
/// its directory under way waits for that flush and returns with its result, though the
/// flush began before the writer's rename and need not have carried it to the disk. The
/// power cut must catch it.
final class LateJoiningGroupCommit: CountingFlushing {
    private typealias Waiter = CheckedContinuation<Result<Void, StorageError>, Never>
    /// Per directory with a flush under way: the writers that joined it.
    private let joined = Mutex<[String: [Waiter]]>([:])

    func flushed(
        _ directory: String, by flush: @escaping @Sendable () async throws(StorageError) -> Void
    )
        async throws(StorageError)
    {
        let leads = joined.withLock { joined in
            guard joined[directory] == nil else { return false }
            joined[directory] = []
            return true
        }
        if leads {
            let result: Result<Void, StorageError>
            do throws(StorageError) {
                try await flush()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            let waiters = joined.withLock { $0.removeValue(forKey: directory) ?? [] }
            for waiter in waiters { waiter.resume(returning: result) }
            try result.get()
        } else {
            let result = await withCheckedContinuation { (waiter: Waiter) in
                // The flush under way may have ended meanwhile: then there is nothing to join,
                // and this broken writer returns at once, unflushed all the same.
                let waits = joined.withLock { joined in
                    joined[directory]?.append(waiter)
                    return joined[directory] != nil
                }
                if !waits { waiter.resume(returning: .success(())) }
            }
            try result.get()
        }
    }

    func waiting(in directory: String) -> Int {
        joined.withLock { $0[directory]?.count ?? 0 }
    }
}
