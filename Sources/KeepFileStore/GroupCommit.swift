import KeepPorts
import Synchronization

/// How writers in one directory share its flush: concurrent writes pay for one directory
/// `fsync` between them, and no write returns before a flush that began after its rename.
///
/// A writer calls ``flushed(_:by:)`` once its rename is done. If no flush of that directory
/// is under way, it leads: it runs `flush` itself. If one is, that flush may have begun
/// before the rename, so it cannot vouch for it: the writer waits (suspended, holding no
/// thread) for the next one. When a flush ends, everyone who arrived while it ran becomes
/// the next batch, and one of them leads it, flushing once for all of them. A lone write
/// therefore flushes at once, exactly as it would without sharing.
///
/// A flush that fails fails every write of its batch with its error (an `EIO` from `fsync`
/// is never retried into a success for any of them); the next batch flushes afresh.
package protocol DirectoryFlushing: Sendable {
    /// Returns once a flush of `directory` that began after this call began has succeeded;
    /// throws that flush's error when it failed. `flush` flushes the directory; it is run by
    /// whichever writer leads the batch this call joins.
    func flushed(
        _ directory: String, by flush: @escaping @Sendable () async throws(StorageError) -> Void)
        async throws(StorageError)
}

/// The file store's ``DirectoryFlushing``: batches of writers, one flush per batch, per
/// directory, within one store (and its copies).
package final class GroupCommit: DirectoryFlushing {
    /// What a waiting writer is told when its turn comes.
    private enum Turn {
        /// Lead the next flush, on behalf of these writers too.
        case lead([CheckedContinuation<Turn, Never>])
        /// The flush that covered your rename is done, with this result.
        case done(Result<Void, StorageError>)
    }

    /// Per directory with a flush under way: the writers that arrived since it began.
    private let waiting = Mutex<[String: [CheckedContinuation<Turn, Never>]]>([:])

    package init() {}

    package func flushed(
        _ directory: String, by flush: @escaping @Sendable () async throws(StorageError) -> Void
    )
        async throws(StorageError)
    {
        let turn: Turn
        // No flush under way: lead at once, without suspending (the lone write's path).
        if let now = waiting.withLock({ waiting in Self.lead(directory, in: &waiting) }) {
            turn = now
        } else {
            turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
                // Asked again under the lock: the flush may have ended since.
                let now = waiting.withLock { waiting in
                    let now = Self.lead(directory, in: &waiting)
                    if now == nil { waiting[directory]?.append(continuation) }
                    return now
                }
                if let now { continuation.resume(returning: now) }
            }
        }
        switch turn {
        case .done(let result):
            try result.get()
        case .lead(let followers):
            // Every follower's rename was done before it joined, and it joined before this
            // flush begins: this one flush covers all of them.
            let result: Result<Void, StorageError>
            do throws(StorageError) {
                try await flush()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            handOver(directory)
            for follower in followers { follower.resume(returning: .done(result)) }
            try result.get()
        }
    }

    /// How many writers wait for the next flush of `directory`: for a test that must know a
    /// batch has formed before it lets the flush under way end.
    package func waiting(in directory: String) -> Int {
        waiting.withLock { $0[directory]?.count ?? 0 }
    }

    /// `.lead([])`, marking a flush of `directory` under way, when none is; else nil.
    private static func lead(
        _ directory: String, in waiting: inout [String: [CheckedContinuation<Turn, Never>]]
    ) -> Turn? {
        guard waiting[directory] == nil else { return nil }
        waiting[directory] = []
        return .lead([])
    }

    /// Ends a flush of `directory`: the writers that arrived while it ran are the next batch,
    /// and the first of them leads it; with none, no flush is under way any more.
    private func handOver(_ directory: String) {
        let next = waiting.withLock { waiting -> [CheckedContinuation<Turn, Never>] in
            let next = waiting[directory] ?? []
            waiting[directory] = next.isEmpty ? nil : []
            return next
        }
        guard let leader = next.first else { return }
        leader.resume(returning: .lead(Array(next.dropFirst())))
    }
}
