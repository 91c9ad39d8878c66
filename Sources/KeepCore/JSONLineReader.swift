/// A reader of one JSON object, driven by what the caller expects: the decoder of chat
/// format 3's lines, which reads each member straight into its field, with no tree of
/// values and no copy of the line.
///
/// It reads any JSON (whitespace, every escape, surrogate pairs, numbers, nested objects and
/// arrays), so a line edited by hand reads as well as one keep wrote; keep's own lines (no
/// whitespace, keys sorted) take its quickest path. A member the caller does not know is
/// skipped, whatever it holds. Everything it refuses is a ``Failure`` that says what was
/// wrong and where, never what the line holds.
///
/// The bytes must be valid UTF-8 (they come from a `String`), so a string without escapes is
/// made from its bytes as they are.
struct JSONLineReader: ~Copyable {
    /// Why a line is not what it should be, in words that never quote it.
    struct Failure: Error, Equatable {
        let reason: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int
    private let end: Int
    /// How deep in arrays and objects a skipped value goes at most: a line nested deeper is
    /// refused rather than read with unbounded recursion.
    private static let maximumDepth = 64

    /// A reader of `bytes[range]`, one line without its newline.
    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        self.bytes = bytes
        index = range.lowerBound
        end = range.upperBound
    }

    // MARK: - What a caller reads

    /// Reads the line as one object, calling `member` with each key in turn; `member` reads
    /// that member's value (or ``skip()``s it). Nothing but whitespace may follow the object.
    mutating func object(_ member: (inout JSONLineReader, Key) throws(Failure) -> Void) throws(Failure) {
        try readObject(member)
        skipSpace()
        guard index == end else { throw Failure(reason: "something follows the object") }
    }

    /// A nested object, member by member, as ``object(_:)`` reads the whole line.
    mutating func nestedObject(_ member: (inout JSONLineReader, Key) throws(Failure) -> Void) throws(Failure) {
        try readObject(member)
    }

    /// An array, element by element: `element` reads each one in turn.
    mutating func array(_ element: (inout JSONLineReader) throws(Failure) -> Void) throws(Failure) {
        skipSpace()
        guard peek() == UInt8(ascii: "[") else { throw Failure(reason: "a value is not an array") }
        index += 1
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try element(&self)
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            default: throw Failure(reason: "an array is not closed")
            }
        }
    }

    /// A string value.
    mutating func string(_ field: StaticString) throws(Failure) -> String {
        skipSpace()
        guard peek() == UInt8(ascii: "\"") else { throw wrongType(field, "a string") }
        return try readString()
    }

    /// A string value checked as ``string(_:)`` checks it, and not made: the same failures,
    /// no string.
    mutating func checkString(_ field: StaticString) throws(Failure) {
        skipSpace()
        guard peek() == UInt8(ascii: "\"") else { throw wrongType(field, "a string") }
        _ = try readString(making: false)
    }

    /// A whole number that fits an `Int`.
    mutating func integer(_ field: StaticString) throws(Failure) -> Int {
        skipSpace()
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        var value = 0
        var digits = 0
        while index < end, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflowPlus) = times.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowPlus else { throw Failure(reason: "\(field) is too large a number") }
            value = plus
            digits += 1
            index += 1
        }
        let fraction = peek().map { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        guard digits > 0, fraction != true else {
            index = start
            throw wrongType(field, "a whole number")
        }
        return bytes[start] == UInt8(ascii: "-") ? -value : value
    }

    /// Whether the value is `null`, which is read when it is.
    mutating func null() -> Bool {
        skipSpace()
        guard matches("null") else { return false }
        index += 4
        return true
    }

    /// Skips a value of any kind.
    mutating func skip() throws(Failure) {
        try skipValue(depth: 0)
    }

    // MARK: - Keys

    /// A member's key, as it appears between its quotes; compared with a field's name
    /// without making a string, unless it holds an escape.
    struct Key {
        fileprivate let raw: UnsafeBufferPointer<UInt8>
        fileprivate let decoded: String?

        /// Whether this key is `name`.
        static func == (key: Key, name: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            if let decoded = key.decoded {
                return decoded.utf8.elementsEqual(expected)
            }
            return key.raw.count == expected.count && key.raw.elementsEqual(expected)
        }
    }

    // MARK: - Reading

    private mutating func readObject(_ member: (inout JSONLineReader, Key) throws(Failure) -> Void) throws(Failure) {
        skipSpace()
        guard peek() == UInt8(ascii: "{") else { throw Failure(reason: "it is not a JSON object") }
        index += 1
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw Failure(reason: "a key is not a string") }
            let key = try readKey()
            skipSpace()
            guard peek() == UInt8(ascii: ":") else { throw Failure(reason: "a key has no value") }
            index += 1
            try member(&self, key)
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default: throw Failure(reason: "the object is not closed")
            }
        }
    }

    private mutating func readKey() throws(Failure) -> Key {
        // The quick path: no escape before the closing quote.
        let start = index + 1
        var scan = start
        while scan < end, bytes[scan] != UInt8(ascii: "\""), bytes[scan] != UInt8(ascii: "\\"), bytes[scan] >= 0x20 {
            scan += 1
        }
        if scan < end, bytes[scan] == UInt8(ascii: "\"") {
            index = scan + 1
            return Key(raw: UnsafeBufferPointer(rebasing: bytes[start..<scan]), decoded: nil)
        }
        let decoded = try readString()
        return Key(raw: UnsafeBufferPointer(start: nil, count: 0), decoded: decoded)
    }

    /// The string starting at the opening quote under the index, escapes decoded.
    private mutating func readString() throws(Failure) -> String {
        // Never `nil` when made.
        try readString(making: true) ?? ""
    }

    /// The string starting at the opening quote under the index, checked as ``readString()``
    /// checks it (the same failures, at the same strings) and made only when `making`: a
    /// reader that needs to know only that a line reads pays for no string it does not keep.
    private mutating func readString(making: Bool) throws(Failure) -> String? {
        index += 1
        let start = index
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text =
                    making ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) : nil
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Failure(reason: "a string holds a control character") }
            index += 1
        }
        // The slow path, from the first escape. First the closing quote: every escape is at
        // least as long as what it stands for, so the string fits in the bytes up to it.
        var close = index
        while close < end, bytes[close] != UInt8(ascii: "\"") {
            close += bytes[close] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard close < end else { throw Failure(reason: "a string is not closed") }
        guard making else {
            _ = try unescape(from: start, to: close, into: nil)
            index = close + 1
            return nil
        }
        var failure: Failure?
        let text = String(unsafeUninitializedCapacity: close - start) { out in
            do throws(Failure) {
                return try unescape(from: start, to: close, into: out.baseAddress)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        index = close + 1
        return text
    }

    /// Decodes the string from `start` to its closing quote at `close` (the index at its first
    /// escape) into `out`, which has room for `close - start` bytes, and answers how many it
    /// wrote; with no `out` only checks it. The bytes before the first escape, then each run
    /// of plain bytes copied whole and each escape decoded.
    private mutating func unescape(
        from start: Int, to close: Int, into out: UnsafeMutablePointer<UInt8>?
    ) throws(Failure) -> Int {
        var count = index - start
        out?.update(from: bytes.baseAddress! + start, count: count)
        while index < close {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                index += 1
                let escape = bytes[index]
                index += 1
                let decoded: UInt8
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded = escape
                case UInt8(ascii: "n"): decoded = 0x0a
                case UInt8(ascii: "t"): decoded = 0x09
                case UInt8(ascii: "r"): decoded = 0x0d
                case UInt8(ascii: "b"): decoded = 0x08
                case UInt8(ascii: "f"): decoded = 0x0c
                case UInt8(ascii: "u"):
                    for unit in try readUnicodeEscape() {
                        out?[count] = unit
                        count += 1
                    }
                    continue
                default:
                    throw Failure(reason: "a string holds an unknown escape")
                }
                out?[count] = decoded
                count += 1
                continue
            }
            guard byte >= 0x20 else { throw Failure(reason: "a string holds a control character") }
            let run = index
            while index < close, bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 { index += 1 }
            out.map { ($0 + count).update(from: bytes.baseAddress! + run, count: index - run) }
            count += index - run
        }
        return count
    }

    /// The UTF-8 of a `\uXXXX` escape (the index after the `u`), a surrogate pair joined.
    private mutating func readUnicodeEscape() throws(Failure) -> [UInt8] {
        let first = try readHex4()
        var scalar: UInt32 = first
        if (0xD800...0xDBFF).contains(first) {
            guard matches("\\u") else { throw Failure(reason: "a string holds half a surrogate pair") }
            index += 2
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw Failure(reason: "a string holds half a surrogate pair")
            }
            scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw Failure(reason: "a string holds half a surrogate pair")
        }
        guard let value = Unicode.Scalar(scalar) else { throw Failure(reason: "a string holds an invalid escape") }
        return Array(String(Character(value)).utf8)
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= end else { throw Failure(reason: "a string holds a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw Failure(reason: "a string holds a bad \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < Self.maximumDepth else { throw Failure(reason: "it is nested too deeply") }
        skipSpace()
        guard let byte = peek() else { throw Failure(reason: "a value is missing") }
        switch byte {
        case UInt8(ascii: "\""): _ = try readString(making: false)
        case UInt8(ascii: "{"):
            try readObject { (reader, _) throws(Failure) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            try array { (reader) throws(Failure) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try skipNumber()
        }
    }

    private mutating func skipNumber() throws(Failure) {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            digits += 1
            index += 1
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        }
        guard digits > 0, index > start else { throw Failure(reason: "a value is not JSON") }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        guard matches(word) else { throw Failure(reason: "a value is not JSON") }
        index += word.utf8CodeUnitCount
    }

    private func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= end else { return false }
        return UnsafeBufferPointer(rebasing: bytes[index..<(index + count)])
            .elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
    }

    private mutating func skipSpace() {
        while index < end {
            switch bytes[index] {
            case 0x20, 0x09, 0x0d, 0x0a: index += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? {
        index < end ? bytes[index] : nil
    }

    private func wrongType(_ field: StaticString, _ expected: String) -> Failure {
        Failure(reason: "the field \(field) is not \(expected)")
    }
}
