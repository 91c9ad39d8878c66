import Foundation

/// A reading with when it was read, and whether it is fresh from the server in this run
/// or kept from an earlier one.
///
/// A kept reading is shown for what it is: with its age beside it, and what would act on
/// the server from it refused (``requireFresh(for:now:)``) until a fresh one arrives.
package struct KeptReading<Value: Sendable & Equatable>: Sendable, Equatable {
    /// What was read.
    package let value: Value
    /// When the server was read.
    package let readAt: Date
    /// True when it was read from the server in this run; false when it was kept.
    package let isFresh: Bool

    /// `value`, read at `readAt`, fresh from the server in this run or kept from an earlier
    /// one.
    package init(value: Value, readAt: Date, isFresh: Bool) {
        self.value = value
        self.readAt = readAt
        self.isFresh = isFresh
    }

    /// How long ago it was read, as `now` sees it.
    package func age(now: Date) -> ReadingAge {
        ReadingAge(readAt: readAt, now: now)
    }

    /// Succeeds on a fresh reading; on a kept one, a typed
    /// ``KeptError/Code/waitsForFreshReading`` error that says what waits and how old the
    /// reading is.
    package func requireFresh(for action: String, now: Date) throws(KeptError) {
        guard !isFresh else { return }
        throw KeptError(
            .waitsForFreshReading, operation: action,
            detail: "it waits for a fresh reading; the one kept was read \(age(now: now))")
    }
}
