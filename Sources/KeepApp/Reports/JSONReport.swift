import Foundation

/// How every `--json` output is written: pretty-printed UTF-8 JSON with sorted keys,
/// slashes left readable, times as UTC ISO 8601 to the millisecond, one trailing newline.
///
/// Sorted keys make the output stable (a diff of two runs shows only what changed); the
/// shapes themselves are the report types' and are documented in the README.
public enum JSONReport {
    /// `value` as JSON text. Throws only for a value JSON cannot hold (a NaN number),
    /// which no report holds.
    public static func text(of value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        // Foundation prints an empty list over three lines; `[]` is what a person expects.
        // A string's newlines are escaped, so a bare newline is always between tokens.
        return text.replacing(/\[\n\n *\]/, with: "[]") + "\n"
    }

    /// `date` as UTC ISO 8601 with milliseconds: `2025-06-14T15:30:12.345Z`.
    ///
    /// The milliseconds are rounded and written by hand: a format style truncates, and a
    /// time stored to the millisecond comes back from `Double` a hair below it.
    public static func time(_ date: Date) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let fraction = (total % 1000 + 1000) % 1000
        let seconds = Date(timeIntervalSince1970: Double((total - fraction) / 1000))
        return seconds.formatted(Date.ISO8601FormatStyle()).dropLast() + "." + String(format: "%03lld", fraction) + "Z"
    }
}
