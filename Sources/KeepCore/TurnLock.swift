/// Runs async work one piece at a time, first come first served.
///
/// A store that persists before it mutates has an `await` between reading its state and
/// committing the new one; two changes interleaved there would each write a file without
/// the other. Work run through the same lock never interleaves: each body starts after
/// the previous one has returned or thrown.
actor TurnLock {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once every earlier body has finished, and returns what it returns.
    func run<T: Sendable, E: Error>(_ body: @Sendable () async throws(E) -> T) async throws(E) -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the lock to the next waiter, who finds it still held, or frees it.
    private func release() {
        if waiting.isEmpty {
            held = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
