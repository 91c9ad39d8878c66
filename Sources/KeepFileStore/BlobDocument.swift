import KeepPorts

/// The legacy store's file, `store.json`: one JSON object whose members are kept in order,
/// each with its exact text, so a rewrite changes only the members it means to.
///
/// Keep's values are the members named `keep.<namespace>.<id>`, with a namespace of the
/// closed set and a non-empty id. Every other member (another prefix, an unknown
/// namespace, a key that is not valid Unicode) is someone else's: never listed, and written
/// back byte for byte. When a key appears twice, the last one is its value (as JSON parsers
/// read it) and a write leaves one.
struct BlobDocument {
    /// One member of the object, as it appeared in the file.
    struct Member {
        /// The key's JSON text, quotes included.
        var rawKey: [UInt8]
        /// The key as a string; `nil` when it holds a lone surrogate no string can.
        var key: String?
        /// The value's JSON text.
        var rawValue: [UInt8]
    }

    private(set) var members: [Member] = []

    /// An empty document: the store before its first write.
    init() {}

    /// The document in `bytes`, or ``StorageError/Code/corrupt`` naming `path` and what is
    /// wrong when they are not one JSON object.
    init(parsing bytes: [UInt8], path: String) throws(StorageError) {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw StorageError(code: .corrupt, operation: "read", path: path, reason: "the file is not valid UTF-8")
        }
        var scanner = JSONScanner(bytes: bytes)
        do throws(JSONScanner.Failure) {
            members = try scanner.object()
        } catch {
            throw StorageError(
                code: .corrupt, operation: "read", path: path,
                reason: "not a JSON object: \(error.problem) at byte \(error.offset)")
        }
    }

    /// The document as the file's bytes: one member per line.
    func serialized() -> [UInt8] {
        guard !members.isEmpty else { return Array("{}\n".utf8) }
        var out = Array("{\n".utf8)
        for (index, member) in members.enumerated() {
            out += Array("  ".utf8) + member.rawKey + Array(": ".utf8) + member.rawValue
            out += Array((index == members.count - 1 ? "\n" : ",\n").utf8)
        }
        return out + Array("}\n".utf8)
    }

    // MARK: - Keep's members

    /// The member key for `key`: `keep.chats.c1`.
    static func memberKey(_ key: StorageKey) -> String {
        "keep.\(key.namespace.rawValue).\(key.id)"
    }

    /// The storage key a member key names, or `nil` when it is not one of Keep's. Split on
    /// bytes, not characters, so an id that starts with a combining mark stays whole.
    static func storageKey(_ memberKey: String) -> StorageKey? {
        let bytes = Array(memberKey.utf8)
        let prefix = Array("keep.".utf8)
        guard bytes.starts(with: prefix),
            let dot = bytes[prefix.count...].firstIndex(of: UInt8(ascii: ".")),
            let namespace = Namespace(rawValue: String(decoding: bytes[prefix.count..<dot], as: UTF8.self)),
            dot + 1 < bytes.count
        else { return nil }
        return StorageKey(namespace, String(decoding: bytes[(dot + 1)...], as: UTF8.self))
    }

    /// The value stored under `key`, `nil` when there is none, and
    /// ``StorageError/Code/corrupt`` when its member is not a JSON string.
    func value(_ key: StorageKey, path: String) throws(StorageError) -> String? {
        let name = Self.memberKey(key)
        guard let member = members.last(where: { $0.key == name }) else { return nil }
        return try Self.value(of: member, path: path)
    }

    /// The value `member` holds, or ``StorageError/Code/corrupt`` when it is not a JSON string.
    static func value(of member: Member, path: String) throws(StorageError) -> String {
        var scanner = JSONScanner(bytes: member.rawValue)
        guard let decoded = try? scanner.string(), let value = decoded.value else {
            throw StorageError(
                code: .corrupt, operation: "read", path: path,
                reason: "the value of \(StorageError.quoted(member.key ?? "?")) is not a JSON string")
        }
        return value
    }

    /// Keep's members by key, in one pass: for a key that appears twice, the last (as
    /// ``value(_:path:)`` reads it).
    func index() -> [StorageKey: Member] {
        var index: [StorageKey: Member] = [:]
        for member in members {
            if let key = member.key.flatMap(Self.storageKey) { index[key] = member }
        }
        return index
    }

    /// Stores `value` under `key`: in place of its first member, dropping any duplicate, or
    /// as a new member at the end.
    mutating func set(_ key: StorageKey, _ value: String) {
        let name = Self.memberKey(key)
        let member = Member(rawKey: Self.quoted(name), key: name, rawValue: Self.quoted(value))
        if let first = members.firstIndex(where: { $0.key == name }) {
            members[first] = member
            members = members.enumerated().filter { $0.offset == first || $0.element.key != name }.map(\.element)
        } else {
            members.append(member)
        }
    }

    /// Drops every member that `isDropped` picks among Keep's; whether any was dropped.
    mutating func removeAll(where isDropped: (StorageKey) -> Bool) -> Bool {
        let before = members.count
        members.removeAll { member in member.key.flatMap(Self.storageKey).map(isDropped) ?? false }
        return members.count != before
    }

    /// The ids of Keep's members in `namespace`, each once, in file order.
    func ids(in namespace: Namespace) -> [String] {
        var seen = Set<String>()
        return members.compactMap { member in
            guard let key = member.key.flatMap(Self.storageKey), key.namespace == namespace,
                seen.insert(key.id).inserted
            else { return nil }
            return key.id
        }
    }

    /// `string` as JSON text: quotes, backslashes and control characters escaped, and the
    /// three characters some JSON readers drop or choke on raw (U+FEFF, U+2028, U+2029) as
    /// `\u` escapes; every other character as its own UTF-8.
    static func quoted(_ string: String) -> [UInt8] {
        let bytes = Array(string.utf8)
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(bytes.count + 2)
        var plainFrom = 0
        var index = 0
        while index < bytes.count {
            let (escape, length) = escaped(bytes, at: index)
            if escape.isEmpty {
                index += 1
                continue
            }
            out += bytes[plainFrom..<index] + escape  // the plain run before, then the escape
            index += length
            plainFrom = index
        }
        out += bytes[plainFrom...]
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// The escape for the character starting at `bytes[index]` and how many bytes it
    /// replaces, or no bytes when it is written as it is.
    private static func escaped(_ bytes: [UInt8], at index: Int) -> (escape: [UInt8], length: Int) {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): return ([UInt8(ascii: "\\"), byte], 1)
        case 0x0a: return (Array("\\n".utf8), 1)
        case 0x0d: return (Array("\\r".utf8), 1)
        case 0x09: return (Array("\\t".utf8), 1)
        case 0x00..<0x20: return (Array("\\u00".utf8) + hex(byte), 1)
        case 0xE2 where bytes[index...].starts(with: [0xE2, 0x80, 0xA8]): return (Array("\\u2028".utf8), 3)
        case 0xE2 where bytes[index...].starts(with: [0xE2, 0x80, 0xA9]): return (Array("\\u2029".utf8), 3)
        case 0xEF where bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]): return (Array("\\ufeff".utf8), 3)
        default: return ([], 1)
        }
    }

    private static func hex(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]]
    }
}

// MARK: - Reading JSON text

/// A strict reader of JSON text (RFC 8259) that keeps the exact text of each top-level
/// member. It never recurses, so no nesting depth can exhaust the stack.
private struct JSONScanner {
    /// Why the text is not JSON, and where.
    struct Failure: Error {
        let problem: String
        let offset: Int
    }

    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The whole text as one object: its members in order, and nothing after it.
    mutating func object() throws(Failure) -> [BlobDocument.Member] {
        var members: [BlobDocument.Member] = []
        skipSpace()
        try expect(UInt8(ascii: "{"), "the file does not start with {")
        skipSpace()
        if peek == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(UInt8(ascii: ":"), "expected : after a key")
                let value = try skipValue()
                members.append(
                    BlobDocument.Member(
                        rawKey: Array(bytes[key.text]), key: key.value, rawValue: Array(bytes[value])))
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                } else {
                    try expect(UInt8(ascii: "}"), "expected , or } after a member")
                    break
                }
            }
        }
        skipSpace()
        guard index == bytes.count else { throw fail("text after the object") }
        return members
    }

    /// One string: the range of its text and its value (`nil` when it holds a lone
    /// surrogate, which JSON allows and no Swift string can hold).
    /// With `decoding` false the string is only checked, and its value is `nil`.
    mutating func string(decoding: Bool = true) throws(Failure) -> (text: Range<Int>, value: String?) {
        let start = index
        try expect(UInt8(ascii: "\""), "expected a string")
        var decoded: [UInt8] = []
        var representable = decoding
        while true {
            // The run of bytes that stand for themselves, in one pass (most of a long value).
            let plainEnd = bytes.withUnsafeBufferPointer { buffer in
                var end = index
                while end < buffer.count, buffer[end] >= 0x20, buffer[end] != 0x22, buffer[end] != 0x5c { end += 1 }
                return end
            }
            if decoding { decoded += bytes[index..<plainEnd] }
            index = plainEnd
            guard let byte = next() else { throw fail("a string with no closing quote") }
            switch byte {
            case UInt8(ascii: "\""):
                return (start..<index, representable ? String(decoding: decoded, as: UTF8.self) : nil)
            case UInt8(ascii: "\\"):
                guard let escape = next() else { throw fail("a string with no closing quote") }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0c)
                case UInt8(ascii: "n"): decoded.append(0x0a)
                case UInt8(ascii: "r"): decoded.append(0x0d)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit), bytes[index...].starts(with: Array("\\u".utf8)) {
                        // A high surrogate followed by an escaped low one: one scalar.
                        let mark = index
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            unit = 0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00)
                        } else {
                            index = mark
                        }
                    }
                    if let scalar = Unicode.Scalar(unit) {
                        UTF8.encode(scalar) { decoded.append($0) }
                    } else {
                        representable = false
                    }
                default: throw fail("an unknown escape")
                }
            default:  // the plain run stops only at a quote, a backslash, or a control character
                throw fail("a control character inside a string")
            }
        }
    }

    /// Skips one value of any kind, checking it, and returns the range of its text.
    mutating func skipValue() throws(Failure) -> Range<Int> {
        skipSpace()
        let start = index
        var closers: [UInt8] = []
        while true {
            skipSpace()
            switch peek {
            case UInt8(ascii: "{"):
                index += 1
                skipSpace()
                if peek == UInt8(ascii: "}") {
                    index += 1
                } else {
                    closers.append(UInt8(ascii: "}"))
                    try memberKey()
                    continue
                }
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if peek == UInt8(ascii: "]") {
                    index += 1
                } else {
                    closers.append(UInt8(ascii: "]"))
                    continue
                }
            case UInt8(ascii: "\""): _ = try string(decoding: false)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case .some(UInt8(ascii: "-")), .some(UInt8(ascii: "0")...UInt8(ascii: "9")): try number()
            case nil: throw fail("the text ends where a value should be")
            default: throw fail("expected a value")
            }
            // A value is complete: close what it completes, or go on to the next element.
            while let closer = closers.last {
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    if closer == UInt8(ascii: "}") { try memberKey() }
                    break
                }
                try expect(closer, "expected , or \(Character(Unicode.Scalar(closer)))")
                closers.removeLast()
            }
            if closers.isEmpty { return start..<index }
        }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func next() -> UInt8? {
        defer { index += 1 }
        return peek
    }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ problem: String) throws(Failure) {
        guard peek == byte else { throw fail(problem) }
        index += 1
    }

    private mutating func memberKey() throws(Failure) {
        skipSpace()
        _ = try string(decoding: false)
        skipSpace()
        try expect(UInt8(ascii: ":"), "expected : after a key")
    }

    private mutating func literal(_ word: String) throws(Failure) {
        guard bytes[index...].starts(with: Array(word.utf8)) else { throw fail("expected \(word)") }
        index += word.utf8.count
    }

    private mutating func number() throws(Failure) {
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw fail("a number without digits") }
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("a number without digits after the point") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("a number without digits in its exponent") }
        }
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next() else { throw fail("a \\u escape cut short") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a \\u escape with a non-hex digit")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private func fail(_ problem: String) -> Failure {
        Failure(problem: problem, offset: index)
    }
}
