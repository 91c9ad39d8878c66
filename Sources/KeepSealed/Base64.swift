/// Standard base64 (RFC 4648, with `=` padding), to keep sealed bytes in a store that holds
/// text: the sealed records of ``SealedStorage``.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` as base64, appended to `out`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let left = bytes.count - index
        guard left > 0 else { return }
        let chunk = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
        out.append(alphabet[Int(chunk >> 18 & 63)])
        out.append(alphabet[Int(chunk >> 12 & 63)])
        out.append(left == 2 ? alphabet[Int(chunk >> 6 & 63)] : UInt8(ascii: "="))
        out.append(UInt8(ascii: "="))
    }

    /// The bytes `text` encodes, in `out`, replacing what it held but keeping its storage (a
    /// caller decoding many records pays for one buffer); `false`, `out` emptied, when `text`
    /// is not canonical base64 (a length that is not a multiple of 4, a byte outside the
    /// alphabet, padding anywhere but at the end).
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        guard let count = decodedCount(text) else { return false }
        // Room for every quantum's three bytes: the decoder writes whole quanta.
        out.append(contentsOf: repeatElement(0, count: text.count / 4 * 3))
        let decoded = out.withUnsafeMutableBytes { decode(text, into: $0) }
        guard decoded == count else {
            out.removeAll(keepingCapacity: true)
            return false
        }
        out.removeLast(out.count - count)
        return true
    }

    /// How many bytes `text` decodes to, from its length and padding alone, or `nil` for a
    /// length that is not a multiple of 4; whether its bytes are base64 is not looked at.
    static func decodedCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard text.count % 4 == 0 else { return nil }
        guard text.count > 0 else { return 0 }
        let padding =
            text[text.count - 1] == UInt8(ascii: "=") ? (text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1) : 0
        return text.count / 4 * 3 - padding
    }

    /// The bytes `text` encodes, written at the start of `out`, which has room for three
    /// bytes per quantum (`text.count / 4 * 3`): how many they are (``decodedCount(_:)``), or
    /// `nil`, `out`'s bytes unspecified, when `text` is not canonical base64 (as the array's
    /// form refuses) or `out` is too small.
    ///
    /// Four characters at a time, each looked up in a table of its own that holds its six
    /// bits already in place in the quantum's 24, so a quantum is four loads ORed together; a
    /// character outside the alphabet sets a bit above the 24, which is checked once, at the
    /// end, not in the loop.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Int? {
        guard let count = decodedCount(text) else { return nil }
        guard count > 0 else { return 0 }
        guard out.count >= text.count / 4 * 3, let input = text.baseAddress, let output = out.baseAddress else {
            return nil
        }
        let quanta = text.count / 4
        let padding = quanta * 3 - count
        return placed.withUnsafeBufferPointer { placed -> Int? in
            guard let table = placed.baseAddress else { return nil }
            var invalid: UInt32 = 0
            var at = 0
            // Every quantum but the last has a quantum after it, so a 4-byte store of its three
            // bytes (the fourth overwritten next) stays inside `out`.
            for quantum in 0..<(quanta - 1) {
                let four = input + quantum * 4
                let bits =
                    table[Int(four[0])] | table[256 + Int(four[1])] | table[512 + Int(four[2])]
                    | table[768 + Int(four[3])]
                invalid |= bits
                (output + at).storeBytes(of: (bits << 8).bigEndian, as: UInt32.self)
                at += 3
            }
            // The last quantum: its padding counts as zero bits.
            let four = input + (quanta - 1) * 4
            var bits = table[Int(four[0])] | table[256 + Int(four[1])]
            if padding < 2 { bits |= table[512 + Int(four[2])] }
            if padding < 1 { bits |= table[768 + Int(four[3])] }
            invalid |= bits
            guard invalid & Self.outside == 0 else { return nil }
            output.storeBytes(of: UInt8(truncatingIfNeeded: bits >> 16), toByteOffset: at, as: UInt8.self)
            if padding < 2 {
                output.storeBytes(of: UInt8(truncatingIfNeeded: bits >> 8), toByteOffset: at + 1, as: UInt8.self)
            }
            if padding < 1 {
                output.storeBytes(of: UInt8(truncatingIfNeeded: bits), toByteOffset: at + 2, as: UInt8.self)
            }
            return count
        }
    }

    /// The bit a character outside the alphabet sets in ``placed``, above a quantum's 24.
    private static let outside: UInt32 = 1 << 24

    /// Four tables of 256, one for each place in a quantum: a character's six bits shifted
    /// to that place (18, 12, 6, 0), or ``outside`` for a character not in the alphabet
    /// (padding included: where it is allowed, the decoder does not look it up).
    private static let placed: [UInt32] = {
        var tables = [UInt32](repeating: outside, count: 4 * 256)
        for place in 0..<4 {
            for (index, byte) in alphabet.enumerated() {
                tables[place * 256 + Int(byte)] = UInt32(index) << (18 - 6 * place)
            }
        }
        return tables
    }()
}
