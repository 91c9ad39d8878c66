import Foundation
import KeepCore
import KeepTerminal

/// ``JSONReport``'s text written as it is made, byte for byte the same, handed on in pieces:
/// for a report too large to build as a tree first (a listing of tens of thousands of
/// chats, which through `JSONEncoder` cost more than the listing and held every entry
/// twice over).
///
/// The caller writes members in the order ``JSONReport`` sorts keys in (by their UTF-8
/// bytes) and closes what it opens; the stream adds the commas, line breaks, indentation
/// and escapes. An empty array is written `[]`, as ``JSONReport`` writes one.
struct JSONStream: ~Copyable {
    /// The piece being gathered, its first `count` bytes written: a buffer of its own, so
    /// that a byte costs a store, not an array's checks.
    private let piece: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    /// How deep the next value is: 0 at the top.
    private var depth = 0
    /// Whether the container being written has no member yet.
    private var empty = true
    /// Whether a key was written and its value is next (and so already placed).
    private var afterKey = false
    /// Where the pieces go; each is a run of whole UTF-8.
    private let sink: (borrowing [UInt8]) -> Void
    /// A line break and the indentation of a line eight levels deep, whose start is appended
    /// to start a line (two spaces a level): constant bytes, so appending them copies them and
    /// nothing else.
    private static let lineStart: StaticString = "\n                "

    /// A stream handing pieces of at most `pieceSize` bytes to `sink` (a longer string, only
    /// when one is longer than that, as a piece of its own).
    init(pieceSize: Int = 64 * 1024, sink: @escaping (borrowing [UInt8]) -> Void) {
        piece = .allocate(capacity: max(pieceSize, 64))
        self.sink = sink
    }

    deinit {
        piece.deallocate()
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
            put(UInt8(ascii: "]"))
            return
        }
        close(UInt8(ascii: "]"))
    }

    // MARK: - Members and values

    /// Starts an object's member named `name` (a name that needs no escape); its value
    /// comes next.
    mutating func key(_ name: StaticString) {
        startElement()
        put(UInt8(ascii: "\""))
        put(name)
        put("\" : ")
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
        put(UInt8(ascii: "\""))
        UTCTime.withUTF8(of: date) { put($0) }
        put(UInt8(ascii: "\""))
    }

    /// A whole number.
    private mutating func integer(_ value: Int) {
        startValue()
        var digits = String(value)
        digits.withUTF8 { put($0) }
    }

    /// `true` or `false`.
    private mutating func bool(_ value: Bool) {
        startValue()
        put(value ? "true" : "false")
    }

    /// Ends the text (one line break, as ``JSONReport`` ends it) and hands on what is left.
    consuming func finish() {
        put(UInt8(ascii: "\n"))
        handOn()
    }

    // MARK: - Layout

    private mutating func open(_ bracket: UInt8) {
        startValue()
        put(bracket)
        depth += 1
        empty = true
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        startLine()
        put(bracket)
        empty = false
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
        if !empty { put(UInt8(ascii: ",")) }
        empty = false
        startLine()
    }

    /// A line break and the indentation of `depth`.
    private mutating func startLine() {
        let width = 1 + 2 * depth
        let most = Self.lineStart.utf8CodeUnitCount
        put(UnsafeBufferPointer(start: Self.lineStart.utf8Start, count: min(width, most)))
        for _ in most..<max(most, width) { put(UInt8(ascii: " ")) }
    }

    // MARK: - The piece

    /// Appends `byte`, handing the piece on first when it is full.
    private mutating func put(_ byte: UInt8) {
        if count == piece.count { handOn() }
        piece[count] = byte
        count += 1
    }

    /// Appends `bytes` whole, handing the piece on first when they do not fit in what is
    /// left of it; bytes longer than a whole piece are handed on as a piece of their own.
    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > piece.count {
            handOn()
            if bytes.count > piece.count { return sink(Array(bytes)) }
        }
        (piece.baseAddress! + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends constant text.
    private mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Hands on what the piece holds, and starts it again.
    private mutating func handOn() {
        guard count > 0 else { return }
        sink(Array(piece[..<count]))
        count = 0
    }

    /// `text` in quotes, escaped as `JSONEncoder` escapes it with slashes left readable:
    /// `"` and `\`, the short escapes for backspace, form feed, line feed, carriage return
    /// and tab, `\u00XX` for the other control characters; then, as ``JSONReport`` does
    /// after the encoder, every other character a terminal would obey (`TerminalText`'s
    /// rule: C1 controls, format and bidirectional characters, separators, tags) as `\u`
    /// escapes; every other byte as it is.
    private mutating func appendString(_ text: String) {
        put(UInt8(ascii: "\""))
        // A native string's bytes are read where they lie; only another kind is copied first.
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var copy = text
            copy.withUTF8 { appendEscaped($0) }
        }
        put(UInt8(ascii: "\""))
    }

    /// `utf8`, escaped, without quotes.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Runs of bytes that need no escape (nearly all of them) are copied whole.
        var start = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F {
                put(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscape(byte)
                index += 1
                start = index
            } else if byte < 0x80 {
                index += 1
            } else {
                // The start of a scalar of more than one byte (the text is valid UTF-8).
                let length = byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                let end = min(index + length, utf8.count)
                if let scalar = Self.scalar(utf8[index..<end]), TerminalText.isObeyed(scalar) {
                    put(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    for unit in String(scalar).utf16 { appendUnicodeEscape(unit) }
                    start = end
                }
                index = end
            }
        }
        put(UnsafeBufferPointer(rebasing: utf8[start...]))
    }

    /// The scalar whose UTF-8 is `bytes`, a lead byte and its continuation bytes.
    private static func scalar(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Unicode.Scalar? {
        guard let lead = bytes.first else { return nil }
        var value = UInt32(lead) & (bytes.count == 2 ? 0x1F : bytes.count == 3 ? 0x0F : 0x07)
        for byte in bytes.dropFirst() { value = value << 6 | UInt32(byte & 0x3F) }
        return Unicode.Scalar(value)
    }

    /// The escape of `byte`: a quote, a backslash or a control character.
    private mutating func appendEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): put(#"\""#)
        case UInt8(ascii: "\\"): put(#"\\"#)
        case 0x08: put(#"\b"#)
        case 0x0C: put(#"\f"#)
        case 0x0A: put(#"\n"#)
        case 0x0D: put(#"\r"#)
        case 0x09: put(#"\t"#)
        default: appendUnicodeEscape(UInt16(byte))
        }
    }

    /// `\u` and the four lowercase hexadecimal digits of `unit`, a UTF-16 code unit.
    private mutating func appendUnicodeEscape(_ unit: UInt16) {
        let hex = Array("0123456789abcdef".utf8)
        put(#"\u"#)
        for shift in [12, 8, 4, 0] { put(hex[Int(unit >> UInt16(shift) & 0xF)]) }
    }
}
