import Foundation

/// How long the engines module keeps readings: a whole number of days from 1 to 365, or
/// until the server is forgotten. Thirty days unless the user chose otherwise.
///
/// Out-of-range days cannot be made: ``init(days:)`` refuses them with a typed error.
package struct Retention: Sendable, Equatable, CustomStringConvertible {
    /// The days readings are kept, or `nil` for until the server is forgotten.
    package let days: Int?

    /// The fewest and most days a retention may be.
    package static let dayRange = 1...365
    /// Thirty days: what applies until the user chooses.
    package static let standard = Retention(checkedDays: 30)
    /// Readings are kept until their server is forgotten.
    package static let untilForgotten = Retention(checkedDays: nil)

    /// Keep readings `days` days; refused unless 1–365.
    package init(days: Int) throws(KeptError) {
        guard Self.dayRange.contains(days) else {
            throw .refused(
                "set how long readings are kept",
                "\(days) days is outside \(Self.dayRange.lowerBound)–\(Self.dayRange.upperBound)")
        }
        self.days = days
    }

    /// The retention a person typed: a number of days, or `forever`.
    package init(parsing text: String) throws(KeptError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "forever" {
            self = .untilForgotten
            return
        }
        guard let days = Int(trimmed) else {
            throw .refused(
                "set how long readings are kept",
                "\(String(reflecting: String(trimmed.prefix(40)))) is neither a number of days (1–365) nor forever")
        }
        try self.init(days: days)
    }

    private init(checkedDays days: Int?) {
        self.days = days
    }

    /// The oldest a reading may be read at, as of `now`; `nil` when nothing is too old.
    func cutoff(now: Date) -> KeptInstant? {
        days.map { KeptInstant(now.addingTimeInterval(-Double($0) * 86_400)) }
    }

    /// `30 days`, `1 day`, `until the server is forgotten`.
    package var description: String {
        switch days {
        case nil: "until the server is forgotten"
        case 1: "1 day"
        case let days?: "\(days) days"
        }
    }
}

// MARK: - Kept as a preference

/// The `retention` preference of the engines module.
///
/// - Shape 1 (written by the first builds): `{"days": n}`, where `0` meant until the
///   server is forgotten. Read by migrating: `0` becomes until forgotten, 1–365 stays.
/// - Shape 2: `{"keep": "days", "days": n}` or `{"keep": "untilForgotten"}`: the
///   choice says what it is, instead of a day count that means something else.
enum RetentionPreference: KeptShape {
    static let kind = "retention"
    static let version = 2
    static let versionsEverWritten = [1, 2]

    private struct V1: Codable {
        let days: Int
    }

    private struct V2: Codable {
        let keep: String
        let days: Int?
    }

    static func encode(_ value: Retention) throws(KeptError) -> [UInt8] {
        try json(value.days.map { V2(keep: "days", days: $0) } ?? V2(keep: "untilForgotten", days: nil))
    }

    static func decode(_ bytes: [UInt8], version: Int) throws(KeptError) -> Retention {
        switch version {
        case 1:
            let shape = try json(V1.self, from: bytes, version: version)
            return shape.days == 0 ? .untilForgotten : try checked(shape.days, version: version)
        case 2:
            let shape = try json(V2.self, from: bytes, version: version)
            switch (shape.keep, shape.days) {
            case ("untilForgotten", nil): return .untilForgotten
            case ("days", let days?): return try checked(days, version: version)
            default:
                throw KeptError(
                    .unreadable, operation: "read retention v2",
                    detail: "\(String(reflecting: String(shape.keep.prefix(40)))) is not a retention choice")
            }
        default:
            throw unknownVersion(version)
        }
    }

    /// `days` as a retention; out of range is unreadable (it was never a valid choice),
    /// never quietly clamped.
    private static func checked(_ days: Int, version: Int) throws(KeptError) -> Retention {
        do {
            return try Retention(days: days)
        } catch {
            throw KeptError(.unreadable, operation: "read retention v\(version)", detail: error.detail)
        }
    }
}
