import Foundation

/// The time a chat id of keep's own form says it was made: `20250614-153012-3fa9c1` is
/// 2025-06-14 15:30:12 UTC (`ChatRepository.newId` makes ids so).
///
/// A new chat whose first answer never came is only a draft, which keeps no time of its
/// own: its id's time is when it was begun, so that is what it reports as created and
/// updated, never the time it is looked at.
package enum ChatIdTime {
    /// The UTC time at the start of `id`; `nil` when `id` is not of keep's form or names
    /// no real time.
    package static func date(of id: String) -> Date? {
        let fields = id.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 8, fields[1].count == 6,
            fields[0].allSatisfy(\.isASCII), fields[1].allSatisfy(\.isASCII),
            let day = Int(fields[0]), let time = Int(fields[1])
        else { return nil }
        var parts = DateComponents()
        parts.year = day / 10000
        parts.month = day / 100 % 100
        parts.day = day % 100
        parts.hour = time / 10000
        parts.minute = time / 100 % 100
        parts.second = time % 100
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        guard parts.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: parts)
    }
}
