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
    /// Two characters at a time, each pair looked up in one table (``pairs``) that holds the
    /// pair's twelve bits, or a bit above them for a pair with a character outside the
    /// alphabet; eight characters are one 8-byte load and four lookups, their six bytes one
    /// 8-byte store. The bit is checked once, at the end, not in the loop. (A pair table
    /// decodes about 1.4 times as fast as one table per character here, and Swift's SIMD
    /// types, built for the baseline x86-64 this package is built for, no faster than it:
    /// measured on 48 KiB and 6 MB, 2026-12-03.)
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Int? {
        guard let count = decodedCount(text) else { return nil }
        guard count > 0 else { return 0 }
        guard out.count >= text.count / 4 * 3, let input = text.baseAddress, let output = out.baseAddress else {
            return nil
        }
        let quanta = text.count / 4
        let padding = quanta * 3 - count
        return pairs.withUnsafeBufferPointer { pairs -> Int? in
            guard let table = pairs.baseAddress else { return nil }
            let raw = UnsafeRawPointer(input)
            var invalid: UInt16 = 0
            // Every quantum but the last, two at a time: the 8-byte store of their six bytes
            // ends inside the next quantum's three, which are written after it.
            let body = quanta - 1
            for pair in 0..<(body / 2) {
                let eight = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: pair * 8, as: UInt64.self))
                let first = table[Int(truncatingIfNeeded: eight & 0xFFFF)]
                let second = table[Int(truncatingIfNeeded: eight >> 16 & 0xFFFF)]
                let third = table[Int(truncatingIfNeeded: eight >> 32 & 0xFFFF)]
                let fourth = table[Int(truncatingIfNeeded: eight >> 48)]
                invalid |= first | second | third | fourth
                let bits = UInt64(first) << 52 | UInt64(second) << 40 | UInt64(third) << 28 | UInt64(fourth) << 16
                (output + pair * 6).storeBytes(of: bits.bigEndian, as: UInt64.self)
            }
            if body % 2 == 1 {
                // The odd quantum before the last: a 4-byte store, its fourth byte the last's.
                let four = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: (body - 1) * 4, as: UInt32.self))
                let first = table[Int(truncatingIfNeeded: four & 0xFFFF)]
                let second = table[Int(truncatingIfNeeded: four >> 16)]
                invalid |= first | second
                let bits = UInt32(first) << 20 | UInt32(second) << 8
                (output + (body - 1) * 3).storeBytes(of: bits.bigEndian, as: UInt32.self)
            }
            // The last quantum: its padding counts as zero bits. Its third character, before
            // one `=`, is looked up beside an `A` (zero bits), which keeps it in its place.
            let last = input + body * 4
            let first = table[Int(last[0]) | Int(last[1]) << 8]
            let second: UInt16 =
                switch padding {
                case 0: table[Int(last[2]) | Int(last[3]) << 8]
                case 1: table[Int(last[2]) | Int(UInt8(ascii: "A")) << 8]
                default: 0
                }
            invalid |= first | second
            guard invalid & Self.outside == 0 else { return nil }
            let bits = UInt32(first) << 12 | UInt32(second)
            let at = body * 3
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

    /// The bit a pair with a character outside the alphabet has in ``pairs``, above a pair's 12.
    private static let outside: UInt16 = 1 << 12

    /// One entry for every two bytes, indexed by the first plus 256 times the second (the two
    /// read as a little-endian `UInt16`): the pair's twelve bits, the first's six above the
    /// second's, or ``outside`` when either is not in the alphabet (padding included: where it
    /// is allowed, the decoder does not look it up). 128 KiB, of which valid text touches the
    /// 4,096 entries of the alphabet's pairs, about 24 KiB of cache lines.
    private static let pairs: [UInt16] = {
        var sextets = [UInt16](repeating: outside, count: 256)
        for (index, byte) in alphabet.enumerated() { sextets[Int(byte)] = UInt16(index) }
        var table = [UInt16](repeating: outside, count: 256 * 256)
        for second in 0..<256 {
            for first in 0..<256 {
                let high = sextets[first]
                let low = sextets[second]
                table[first | second << 8] = (high | low) & outside == 0 ? high << 6 | low : outside
            }
        }
        return table
    }()
}
