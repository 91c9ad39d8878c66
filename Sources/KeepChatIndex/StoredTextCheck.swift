/// Whether a chat's stored text (the JSON its file holds, opened when sealed) may hold a
/// message containing some text, ignoring case and accents: the check a search makes of each
/// candidate before decoding it, so that a chat that cannot match costs its read and one pass
/// over its bytes, never its decoding or the full comparison of every message.
///
/// It compares folded scalars (``TextFolding``): the stored text's, with JSON's `\uXXXX`
/// escapes read as the scalars they stand for, against the text's. A message's text stands
/// in its chat's JSON as a run of its characters, each as it is or escaped; so whatever
/// ``/KeepCore/ChatRepository/search(_:)`` finds in a message (containment ignoring case and
/// accents, which the fold never says less than) the fold finds in the stored text, unless
/// the text holds a character JSON may write as another escape (`"`, `\`, `/`, a control
/// character): for such text it does not apply (``mayHold(_:)`` is always true). What it
/// finds elsewhere (in a key, across two strings) costs a decoding, never a wrong answer:
/// the caller still checks each message.
struct StoredTextCheck {
    /// The folded scalars looked for.
    private let wanted: [UInt32]
    private var folding: TextFolding
    /// What one scalar of the stored text folds to, for the one being decoded.
    private var expansion: [UInt32] = []

    /// The check for `text`.
    init(_ text: String) {
        var folding = TextFolding()
        let escaped = text.utf8.contains {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/")
        }
        wanted = escaped ? [] : folding.folded(text)
        self.folding = folding
    }

    /// Whether the check says anything: `false` for text with a character JSON may escape
    /// otherwise than as `\uXXXX`, or that folds to nothing.
    var applies: Bool { !wanted.isEmpty }

    /// Whether `stored` may hold a message containing the text; `true` whenever the check
    /// does not apply.
    mutating func mayHold(_ stored: String) -> Bool {
        guard applies else { return true }
        var stored = stored
        return stored.withUTF8 { bytes in scan(bytes) }
    }

    /// Whether a stored chat, or one of its lines (its bytes, valid UTF-8), may hold a
    /// message containing the text, as ``mayHold(_:)`` says of a chat's string; `true`
    /// whenever the check does not apply.
    mutating func mayHold(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard applies else { return true }
        return scan(utf8)
    }

    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let first = wanted[0]
        let skipper = Skipper(wanted)
        let count = bytes.count
        var index = 0
        while index < count {
            // What cannot begin a match is passed over 8 bytes at a time: every byte before
            // the first that may is plain ASCII, so `index` stays at the start of a character.
            while index + 9 <= count {
                let offset = skipper.firstPossibleStart(base + index)
                if offset == 8 {
                    index += 8
                    continue
                }
                index += offset
                break
            }
            let byte = bytes[index]
            if byte < 0x80 && byte != UInt8(ascii: "\\") {
                // Plain ASCII, the common case: folded by lower-casing a letter.
                if UInt32(byte &- 0x41 < 26 ? byte | 0x20 : byte) == first, matches(bytes, at: index, skipping: 0) {
                    return true
                }
                index += 1
                continue
            }
            let length = decode(bytes, at: index)
            // A match may begin inside what one scalar folds to (`ß` is `ss`).
            let held = expansion
            for skip in held.indices where held[skip] == first {
                if matches(bytes, at: index, skipping: skip) { return true }
            }
            index += length
        }
        return false
    }

    /// Where a match may begin in 8 bytes: at a byte (and the next) that fold to the first
    /// (two) scalars wanted, when those are ASCII, or at any byte that is not plain ASCII (a
    /// scalar's first byte, or a backslash that may begin an escape).
    private struct Skipper {
        /// The byte the first scalar wanted is, ASCII lower case, or `nil` when it is not ASCII
        /// (then only a byte that is not plain ASCII can begin a match).
        let first: UInt8?
        let second: UInt8?
        let firstIsLetter: Bool
        let secondIsLetter: Bool

        init(_ wanted: [UInt32]) {
            func ascii(_ scalar: UInt32?) -> UInt8? {
                guard let scalar, scalar < 0x80, scalar != UInt32(UInt8(ascii: "\\")) else { return nil }
                return UInt8(scalar)
            }
            first = ascii(wanted.first)
            second = first == nil ? nil : ascii(wanted.count > 1 ? wanted[1] : nil)
            firstIsLetter = first.map { $0 &- 0x61 < 26 } ?? false
            secondIsLetter = second.map { $0 &- 0x61 < 26 } ?? false
        }

        /// The offset in `bytes[0..<8]` of the first byte a match may begin at, or 8; reads
        /// `bytes[8]` too. Eight bytes at once in a 64-bit word, each byte's answer in its top
        /// bit.
        func firstPossibleStart(_ bytes: UnsafePointer<UInt8>) -> Int {
            let raw = UnsafeRawPointer(bytes)
            let word = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            var hits = word & Self.high | Self.equal(word, Self.backslash)
            if let first {
                var starts = Self.equal(firstIsLetter ? word | Self.caseBits : word, Self.each(first))
                if let second {
                    let next = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
                    // The byte after may also be where a fold begins: not plain ASCII.
                    starts &=
                        Self.equal(secondIsLetter ? next | Self.caseBits : next, Self.each(second)) | next & Self.high
                        | Self.equal(next, Self.backslash)
                }
                hits |= starts
            }
            return hits == 0 ? 8 : hits.trailingZeroBitCount / 8
        }

        private static let high: UInt64 = 0x8080_8080_8080_8080
        private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        private static let caseBits: UInt64 = 0x2020_2020_2020_2020
        private static let backslash = each(UInt8(ascii: "\\"))

        private static func each(_ byte: UInt8) -> UInt64 { UInt64(byte) &* 0x0101_0101_0101_0101 }

        /// The top bit of each byte of `word` that equals the same byte of `pattern`, exactly.
        private static func equal(_ word: UInt64, _ pattern: UInt64) -> UInt64 {
            let difference = word ^ pattern
            return ~(((difference & low7) &+ low7) | difference) & high
        }
    }

    /// Whether the folded scalars from the byte `start`, leaving out the first `skip` of the
    /// first scalar's fold, begin with every scalar wanted.
    private mutating func matches(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, skipping skip: Int) -> Bool {
        var matched = 0
        var index = start
        var first = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 && byte != UInt8(ascii: "\\") {
                guard UInt32(byte &- 0x41 < 26 ? byte | 0x20 : byte) == wanted[matched] else { return false }
                matched += 1
                if matched == wanted.count { return true }
                index += 1
                first = false
                continue
            }
            index += decode(bytes, at: index)
            for scalar in expansion.dropFirst(first ? skip : 0) {
                guard scalar == wanted[matched] else { return false }
                matched += 1
                if matched == wanted.count { return true }
            }
            first = false
        }
        return false
    }

    /// Decodes the scalar (or JSON escape) at `index` into `expansion`, folded, and answers
    /// how many bytes it takes. Bytes that are not UTF-8 (which a `String` never holds) and
    /// escapes that are not JSON's stand for themselves, a byte each.
    private mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        expansion.removeAll(keepingCapacity: true)
        let lead = bytes[index]
        if lead == UInt8(ascii: "\\") {
            guard index + 1 < bytes.count else {
                expansion.append(UInt32(lead))
                return 1
            }
            guard bytes[index + 1] == UInt8(ascii: "u"), let unit = Self.hex(bytes, at: index + 2) else {
                // `\n`, `\"` and the like: two bytes that stand for a character the text wanted never holds.
                expansion.append(UInt32(bytes[index + 1]))
                return 2
            }
            var value = unit
            var length = 6
            if (0xD800..<0xDC00).contains(unit), index + 11 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"),
                bytes[index + 7] == UInt8(ascii: "u"), let low = Self.hex(bytes, at: index + 8),
                (0xDC00..<0xE000).contains(low)
            {
                value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                length = 12
            }
            folding.fold(scalar: value, into: &expansion)
            return length
        }
        guard let (value, length) = TextFolding.decode(bytes, at: index) else {
            expansion.append(UInt32(lead))
            return 1
        }
        folding.fold(scalar: value, into: &expansion)
        return length
    }

    /// The four hexadecimal digits at `index`, or `nil`.
    private static func hex(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
