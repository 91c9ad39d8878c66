import Foundation

/// How long ago something was read, in words for a terminal: `just now`, `42 s ago`,
/// `5 min ago`, `3 h ago`, `4 days ago`.
///
/// Rounded down to the largest unit that fits, so an age never reads younger than it
/// is by more than that unit. A time ahead of `now` (a clock set back since) reads as
/// `just now`, never as a negative age.
package struct ReadingAge: Sendable, Equatable, CustomStringConvertible {
    /// Whole seconds since the reading, never negative.
    package let seconds: Int64

    /// The age, at `now`, of what was read at `readAt`; zero when `readAt` is later.
    package init(readAt: Date, now: Date) {
        let elapsed = now.timeIntervalSince(readAt).rounded(.down)
        seconds = elapsed > 0 ? Int64(exactly: elapsed) ?? .max : 0
    }

    package var description: String {
        switch seconds {
        case ..<1: "just now"
        case ..<60: "\(seconds) s ago"
        case ..<3600: "\(seconds / 60) min ago"
        case ..<(48 * 3600): "\(seconds / 3600) h ago"
        default: "\(seconds / 86400) days ago"
        }
    }
}
