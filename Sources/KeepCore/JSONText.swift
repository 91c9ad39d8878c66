/// JSON text as chat format 3 writes it: strings quoted and escaped, members appended in
/// the order the caller gives (sorted by key, as the format asks), no whitespace.
///
/// A string's bytes are kept as they are but for what JSON requires escaping: `"`, `\`
/// and the control characters (a newline as `\n`, others as `\u00XX`), so a line never
/// holds a raw newline or NUL.
struct JSONText {
    /// The text so far.
    private(set) var bytes: [UInt8] = []
    private var first = true

    /// An object begins: `{`.
    init(capacity: Int = 128) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The member `key` with a string value.
    mutating func member(_ key: StaticString, _ value: String) {
        self.key(key)
        Self.appendQuoted(value, to: &bytes)
    }

    /// The member `key` with a string value, when there is one.
    mutating func member(_ key: StaticString, ifPresent value: String?) {
        if let value { member(key, value) }
    }

    /// The member `key` with a whole number.
    mutating func member(_ key: StaticString, _ value: Int) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// The member `key` with an object as its value, made by `body`.
    mutating func member(_ key: StaticString, object body: (inout JSONText) -> Void) {
        self.key(key)
        var nested = JSONText(capacity: 64)
        body(&nested)
        bytes.append(contentsOf: nested.closed)
    }

    /// The member `key` with an array of objects as its value, one made by `body` for each
    /// of `elements`.
    mutating func member<Element>(
        _ key: StaticString, objects elements: [Element], body: (Element, inout JSONText) -> Void
    ) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            var nested = JSONText(capacity: 64)
            body(element, &nested)
            bytes.append(contentsOf: nested.closed)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The object closed: `}`, as a string.
    var text: String { String(decoding: closed, as: UTF8.self) }

    private var closed: [UInt8] { bytes + [UInt8(ascii: "}")] }

    private mutating func key(_ key: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(contentsOf: "\":".utf8)
    }

    /// `value` as a JSON string, quoted, appended to `bytes`.
    static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Runs with nothing to escape are copied whole.
            var start = 0
            for (index, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
                case 0x0a: bytes.append(contentsOf: "\\n".utf8)
                case 0x09: bytes.append(contentsOf: "\\t".utf8)
                case 0x0d: bytes.append(contentsOf: "\\r".utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xf)])
                }
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
