import Synchronization
import Testing

@testable import KeepApp

/// A long migration shows its progress; a short one shows nothing.
@Suite("Migration progress")
struct MigrationProgressTests {
    /// A clock the test moves by hand.
    final class HandClock: Sendable {
        private let start = ContinuousClock.now
        private let elapsed = Mutex(Duration.zero)
        func advance(_ by: Duration) { elapsed.withLock { $0 += by } }
        func now() -> ContinuousClock.Instant { start + elapsed.withLock { $0 } }
    }

    @Test("progress shows once a migration has taken more than a second, at most ten times a second, and is cleared")
    func showsPastASecond() {
        let clock = HandClock()
        let shown = Mutex<[String?]>([])
        let progress = MigrationProgress(show: { line in shown.withLock { $0.append(line) } }, now: clock.now)
        for done in 1...5 {
            progress.update(done, of: 100)
            clock.advance(.milliseconds(100))
        }
        #expect(shown.withLock { $0 }.isEmpty, "within the first second nothing shows")
        clock.advance(.seconds(1))
        progress.update(6, of: 100)
        progress.update(7, of: 100)  // the same instant: not redrawn
        clock.advance(.milliseconds(150))
        progress.update(8, of: 100)
        progress.update(100, of: 100)  // the last value always shows
        progress.finish()
        #expect(
            shown.withLock { $0 } == [
                "keep: copying store.json into the file store, once: 6 of 100 values",
                "keep: copying store.json into the file store, once: 8 of 100 values",
                "keep: copying store.json into the file store, once: 100 of 100 values",
                nil,
            ])
    }

    @Test("a migration that finishes within a second shows nothing, not even a clearing")
    func aShortMigrationShowsNothing() {
        let clock = HandClock()
        let shown = Mutex<[String?]>([])
        let progress = MigrationProgress(show: { line in shown.withLock { $0.append(line) } }, now: clock.now)
        for done in 1...100 {
            progress.update(done, of: 100)
            clock.advance(.milliseconds(5))
        }
        progress.finish()
        #expect(shown.withLock { $0 }.isEmpty)
    }
}
