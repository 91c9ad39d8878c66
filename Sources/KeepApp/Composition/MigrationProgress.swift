import Foundation
import Synchronization

/// A long one-time migration's progress, shown in place once it has taken more than a
/// second, and cleared when it ends.
///
/// A migration that finishes within the second shows nothing. After that the line is
/// redrawn at most ten times a second (and at the last value), so showing it costs the
/// copy nothing worth measuring. With no `show` (standard error is not a terminal) it does
/// nothing at all.
final class MigrationProgress: Sendable {
    private let show: (@Sendable (String?) -> Void)?
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())

    private struct State {
        var started: ContinuousClock.Instant?
        var lastShown: ContinuousClock.Instant?
        var showing = false
    }

    /// Progress drawn through `show` (a line; `nil` clears it), timed by `now`.
    init(
        show: (@Sendable (String?) -> Void)?,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.show = show
        self.now = now
    }

    /// `done` of `total` values are copied.
    func update(_ done: Int, of total: Int) {
        guard let show else { return }
        let time = now()
        let line: String? = state.withLock { state in
            let started = state.started ?? time
            state.started = started
            guard time - started >= .seconds(1) else { return nil }
            if let last = state.lastShown, time - last < .milliseconds(100), done < total { return nil }
            state.lastShown = time
            state.showing = true
            return "keep: copying store.json into the file store, once: \(done) of \(total) values"
        }
        if let line { show(line) }
    }

    /// The migration ended: the line, if one was shown, is cleared.
    func finish() {
        guard let show else { return }
        if state.withLock({ $0.showing }) { show(nil) }
    }
}
