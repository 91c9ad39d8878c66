import Foundation

/// The one time format Keep writes, `2025-06-14T15:30:12.345Z` (chats on disk, and every
/// `--json` report), read and written by hand: UTC, ISO 8601, to the millisecond.
///
/// Listing ten thousand chats reads some seventy thousand times; a general ISO 8601 parser
/// cost more there than the rest of a chat's decoding. This reads exactly the form Keep
/// writes, with or without a fraction (digits past the millisecond are dropped), and
/// nothing else: no offsets, no lower-case `t` or `z`, no dates that do not exist.
public enum UTCTime {
    /// `date`, rounded to the millisecond: `2025-06-14T15:30:12.345Z`. (Rounded, because a
    /// time kept to the millisecond comes back from `Double` a hair below it, and a format
    /// style would truncate it.)
    public static func text(_ date: Date) -> String {
        text(milliseconds: roundedMilliseconds(date))
    }

    /// ``text(_:)`` of `date` as UTF-8, handed to `body` without a string or an array made
    /// for it (in the years 0000 to 9999). Not generic, since a generic function called from
    /// another module pays a metadata lookup on every call.
    public static func withUTF8(of date: Date, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withUTF8(milliseconds: roundedMilliseconds(date), body)
    }

    /// `milliseconds` since 1970 as `YYYY-MM-DDTHH:MM:SS.mmmZ`; years 0000 to 9999.
    static func text(milliseconds: Int64) -> String {
        var text = ""
        withUTF8(milliseconds: milliseconds) { text = String(decoding: $0, as: UTF8.self) }
        return text
    }

    private static func roundedMilliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    private static func withUTF8<Result>(milliseconds: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result
    {
        let fraction = (milliseconds % 1000 + 1000) % 1000
        let seconds = (milliseconds - fraction) / 1000
        let secondOfDay = (seconds % 86_400 + 86_400) % 86_400
        let (year, month, day) = civil(fromDays: (seconds - secondOfDay) / 86_400)
        let (hour, minute, second) = (secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
        guard (0...9999).contains(year) else {
            // Outside the four-digit years: as many digits as it takes, and a sign.
            var bytes: [UInt8] = []
            let fields: [(value: Int64, width: Int, separator: Character)] = [
                (year, 4, "-"), (month, 2, "-"), (day, 2, "T"), (hour, 2, ":"), (minute, 2, ":"), (second, 2, "."),
                (fraction, 3, "Z"),
            ]
            for field in fields {
                appendDigits(field.value, field.width, to: &bytes)
                bytes.append(contentsOf: field.separator.utf8)
            }
            return bytes.withUnsafeBufferPointer(body)
        }
        // The usual case: 24 bytes of fixed layout, written in place.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            /// `value` in `width` digits at `offset`, and `separator` after them.
            func put(_ value: Int64, _ width: Int, at offset: Int, then separator: UInt8) {
                var value = value
                for position in (offset..<offset + width).reversed() {
                    text[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                }
                text[offset + width] = separator
            }
            put(year, 4, at: 0, then: UInt8(ascii: "-"))
            put(month, 2, at: 5, then: UInt8(ascii: "-"))
            put(day, 2, at: 8, then: UInt8(ascii: "T"))
            put(hour, 2, at: 11, then: UInt8(ascii: ":"))
            put(minute, 2, at: 14, then: UInt8(ascii: ":"))
            put(second, 2, at: 17, then: UInt8(ascii: "."))
            put(fraction, 3, at: 20, then: UInt8(ascii: "Z"))
            return body(UnsafeBufferPointer(text))
        }
    }

    /// `value`'s decimal digits, zero-padded to at least `width`.
    private static func appendDigits(_ value: Int64, _ width: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor <= magnitude / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
    }

    /// The milliseconds since 1970 that `text` names, or `nil` when it is not exactly
    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` naming a real instant.
    static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"),
            bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]),
            let second = number(bytes[17..<19]),
            (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var fraction: Int64 = 0
        if bytes.count > 20 {
            // A fraction: a dot, at least one digit, then the Z; the first three digits
            // are the milliseconds (`.5` is 500), the rest are dropped.
            let digits = bytes[20..<(bytes.count - 1)]
            guard bytes[19] == UInt8(ascii: "."), !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
            for position in 0..<3 {
                let digit =
                    position < digits.count ? Int64(digits[digits.startIndex + position] - UInt8(ascii: "0")) : 0
                fraction = fraction * 10 + digit
            }
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        let days = self.days(fromCivil: year, month, day)
        return ((days * 86_400) + hour * 3600 + minute * 60 + second) * 1000 + fraction
    }

    /// The decimal number `bytes` spell (a field of at most four digits), when they are all digits.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard bytes.allSatisfy(isDigit) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func daysIn(_ month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar (the
    /// era-based method: 400-year eras of 146,097 days, years starting in March).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01: the inverse of ``days(fromCivil:_:_:)``.
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
