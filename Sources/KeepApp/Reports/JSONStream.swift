import Foundation
import KeepCore

/// ``JSONReport``'s text written as it is made, byte for byte the same, handed on in pieces:
/// for a report too large to build as a tree first (a listing of tens of thousands of
/// chats, which through `JSONEncoder` cost more than the listing and held every entry
/// twice over).
///
/// The caller writes members in the order ``JSONReport`` sorts keys in (by their UTF-8
/// bytes) and closes what it opens; the stream adds the commas, line breaks, indentation
/// and escapes. An empty array is written `[]`, as ``JSONReport`` writes one.
struct JSONStream: ~Copyable {
    private var bytes: [UInt8] = []
    /// How deep the next value is: 0 at the top.
    private var depth = 0
    /// Whether the container being written has no member yet.
    private var empty = true
    /// Whether a key was written and its value is next (and so already placed).
    private var afterKey = false
    /// Where the pieces go; each is a run of whole UTF-8.
    private let sink: (borrowing [UInt8]) -> Void
    /// How many bytes gather before they are handed on.
    private let pieceSize: Int
    /// A line break and the indentation of a line eight levels deep, whose start is appended
    /// to start a line (two spaces a level): constant bytes, so appending them copies them and
    /// nothing else.
    private static let lineStart: StaticString = "\n                "

    init(pieceSize: Int = 64 * 1024, sink: @escaping (borrowing [UInt8]) -> Void) {
        self.pieceSize = pieceSize
        self.sink = sink
        bytes.reserveCapacity(pieceSize + 1024)
    }

    // MARK: - Containers

    /// Opens an object: the top-level value, an array's element, or after ``key(_:)``.
    mutating func openObject() { open(UInt8(ascii: "{")) }

    /// Closes the object opened last.
    mutating func closeObject() { close(UInt8(ascii: "}")) }

    /// Opens an array: the top-level value, an array's element, or after ``key(_:)``.
    mutating func openArray() { open(UInt8(ascii: "[")) }

    /// Closes the array opened last: `[]` when it got no element.
    mutating func closeArray() {
        if empty {
            // `[` was written with nothing after it: the array stays on one line.
            depth -= 1
            empty = false
            bytes.append(UInt8(ascii: "]"))
            return
        }
        close(UInt8(ascii: "]"))
    }

    // MARK: - Members and values

    /// Starts an object's member named `name` (a name that needs no escape); its value
    /// comes next.
    mutating func key(_ name: StaticString) {
        startElement()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: "\" : ".utf8)
        afterKey = true
    }

    /// The member `name` with the string `text`.
    mutating func member(_ name: StaticString, _ text: String) {
        key(name)
        string(text)
    }

    /// The member `name` with the time `date`.
    mutating func member(_ name: StaticString, _ date: Date) {
        key(name)
        time(date)
    }

    /// The member `name` with the whole number `value`.
    mutating func member(_ name: StaticString, _ value: Int) {
        key(name)
        integer(value)
    }

    /// The member `name` with `true` or `false`.
    mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// A string: an array's element, or a member's value after ``key(_:)``.
    mutating func string(_ text: String) {
        startValue()
        appendString(text)
    }

    /// A time, as ``UTCTime`` writes it, in quotes.
    private mutating func time(_ date: Date) {
        startValue()
        bytes.append(UInt8(ascii: "\""))
        UTCTime.append(date, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A whole number.
    private mutating func integer(_ value: Int) {
        startValue()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `true` or `false`.
    private mutating func bool(_ value: Bool) {
        startValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Ends the text (one line break, as ``JSONReport`` ends it) and hands on what is left.
    consuming func finish() {
        bytes.append(UInt8(ascii: "\n"))
        sink(bytes)
    }

    // MARK: - Layout

    private mutating func open(_ bracket: UInt8) {
        startValue()
        bytes.append(bracket)
        depth += 1
        empty = true
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        startLine()
        bytes.append(bracket)
        empty = false
        handOn()
    }

    /// Places a value: after a key it is placed already; in an array it starts a line.
    private mutating func startValue() {
        if afterKey {
            afterKey = false
        } else if depth > 0 {
            startElement()
        }
    }

    /// A comma after the previous element, a line break and the indentation.
    private mutating func startElement() {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        startLine()
    }

    /// A line break and the indentation of `depth`.
    private mutating func startLine() {
        let width = 1 + 2 * depth
        let most = Self.lineStart.utf8CodeUnitCount
        bytes.append(contentsOf: UnsafeBufferPointer(start: Self.lineStart.utf8Start, count: min(width, most)))
        for _ in most..<max(most, width) { bytes.append(UInt8(ascii: " ")) }
    }

    private mutating func handOn() {
        guard bytes.count >= pieceSize else { return }
        sink(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// `text` in quotes, escaped as `JSONEncoder` escapes it with slashes left readable:
    /// `"` and `\`, the short escapes for backspace, form feed, line feed, carriage return
    /// and tab, `\u00XX` for the other control characters, and every other byte as it is.
    private mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // A native string's bytes are read where they lie; only another kind is copied first.
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var copy = text
            copy.withUTF8 { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `utf8`, escaped, without quotes.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Runs of bytes that need no escape (nearly all of them) are copied whole.
        var start = 0
        for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            appendEscape(byte)
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }

    /// The escape of `byte`: a quote, a backslash or a control character.
    private mutating func appendEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
        case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
        case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
        case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
        case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
        case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: #"\u00"#.utf8)
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 0xF)])
        }
    }
}
