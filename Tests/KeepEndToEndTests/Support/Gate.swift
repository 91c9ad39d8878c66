import Foundation

/// A gate a test holds shut and opens when it is ready: the loopback server streams part
/// of an answer, then waits here, so the test decides when (or whether) the rest comes.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// Lets every waiter through, now and later.
    func open() {
        // Enough permits for any number of waiters: each passes and hands one on.
        semaphore.signal()
    }

    /// Blocks until the gate opens, or `seconds` pass (a guard against a test that never
    /// opens it); answers whether it opened.
    @discardableResult
    func wait(seconds: Double = 60) -> Bool {
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return false }
        semaphore.signal()
        return true
    }
}
