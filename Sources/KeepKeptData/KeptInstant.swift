import Foundation

/// When a row was kept, to the millisecond: the time every owner's store writes in clear
/// beside a sealed payload, so that a query (newest, prune) can use it.
///
/// Whole milliseconds since 1970, so what a store reads back equals what it was given,
/// whichever store it is (a `Date` would lose its sub-millisecond part on disk and no
/// longer compare equal).
package struct KeptInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Whole milliseconds since 1970-01-01 UTC: what a store writes and reads back.
    package let millisecondsSince1970: Int64

    /// The instant `millisecondsSince1970` milliseconds after 1970, as a store reads it
    /// back.
    package init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// `date`, rounded down to its millisecond.
    package init(_ date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        // A date outside what 64-bit milliseconds can count (millions of years away)
        // is clamped rather than trapping.
        millisecondsSince1970 = Int64(exactly: milliseconds) ?? (milliseconds < 0 ? .min : .max)
    }

    /// The instant as a `Date`.
    package var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    package static func < (lhs: KeptInstant, rhs: KeptInstant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    package var description: String { "\(millisecondsSince1970) ms" }
}
