import Foundation
import KeepTerminal

/// How every `--json` output is written: pretty-printed UTF-8 JSON with sorted keys,
/// slashes left readable, times as UTC ISO 8601 to the millisecond, one trailing newline,
/// and every character a terminal would obey written as a `\u` escape (the encoder escapes
/// only C0; `TerminalText/escapedInJSON(_:)` does the rest: C1, bidirectional and other
/// format characters, line and paragraph separators, tags), so a report that quotes a
/// server or a file prints nothing raw.
///
/// Sorted keys make the output stable (a diff of two runs shows only what changed); the
/// shapes themselves are the report types' and are documented in `docs/keep-guide.md`, "JSON output".
package enum JSONReport {
    /// `value` as JSON text. Throws only for a value JSON cannot hold (a NaN number),
    /// which no report holds.
    package static func text(of value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: collapsingEmptyLists(Array(try encoder.encode(value))), as: UTF8.self)
        return TerminalText.escapedInJSON(json) + "\n"
    }

    /// `json` with every empty list written `[]`: Foundation prints one over three lines
    /// (`[`, a blank line, the indented `]`). A string's newlines are escaped, so a bare
    /// newline is always between tokens. One pass over the bytes: a listing of ten thousand
    /// chats is megabytes, and a regular expression over them cost more than the encoding.
    static func collapsingEmptyLists(_ json: [UInt8]) -> [UInt8] {
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), newline = UInt8(ascii: "\n")
        let space = UInt8(ascii: " ")
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var index = 0
        while index < json.count {
            let byte = json[index]
            out.append(byte)
            index += 1
            guard byte == open, index + 1 < json.count, json[index] == newline, json[index + 1] == newline else {
                continue
            }
            var end = index + 2
            while end < json.count, json[end] == space { end += 1 }
            if end < json.count, json[end] == close {
                out.append(close)
                index = end + 1
            }
        }
        return out
    }
}
