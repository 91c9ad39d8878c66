import Foundation
import Synchronization

/// Runs bodies that block (SQLite's commits) each on a thread of its own, all at once,
/// and resumes the awaiting task when the last has finished: blocking work that truly
/// overlaps, without holding one of the cooperative pool's few threads while it waits.
enum OwnThreads {
    /// Runs `body(0)` … `body(count - 1)` on `count` new threads; rethrows the first error.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) async throws {
        guard count > 0 else { return }
        let state = Mutex<(remaining: Int, error: (any Error)?)>((count, nil))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            for index in 0..<count {
                Thread {
                    var failure: (any Error)?
                    do { try body(index) } catch { failure = error }
                    let (last, error) = state.withLock { state in
                        state.remaining -= 1
                        if state.error == nil { state.error = failure }
                        return (state.remaining == 0, state.error)
                    }
                    guard last else { return }
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }.start()
            }
        }
    }
}
