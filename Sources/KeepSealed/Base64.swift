/// Standard base64 (RFC 4648, with `=` padding), to keep sealed bytes in a store that holds
/// text: the sealed records of ``SealedStorage``.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// Each byte's value in the alphabet, 0xFF for a byte that is not in it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
        return values
    }()

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
        guard text.count % 4 == 0 else { return false }
        guard text.count > 0 else { return true }
        let last = text.count - 4
        let padding =
            text[text.count - 1] == UInt8(ascii: "=") ? (text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1) : 0
        let count = text.count / 4 * 3 - padding
        // The bytes are written in place: room for every quantum's three, padding included.
        out.append(contentsOf: repeatElement(0, count: count + padding))
        // The table once, outside the loop: each read of a static through its accessor costs
        // a lazy-initialisation check.
        let valid = values.withUnsafeBufferPointer { values in
            out.withUnsafeMutableBufferPointer { out in
                var index = 0
                var at = 0
                while index < text.count {
                    let a = values[Int(text[index])]
                    let b = values[Int(text[index + 1])]
                    // The padding of the last quantum counts as zero bits.
                    let isLast = index == last
                    let c = isLast && padding == 2 ? 0 : values[Int(text[index + 2])]
                    let d = isLast && padding >= 1 ? 0 : values[Int(text[index + 3])]
                    guard (a | b | c | d) & 0xC0 == 0 else { return false }
                    let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[at] = UInt8(truncatingIfNeeded: chunk >> 16)
                    out[at + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    out[at + 2] = UInt8(truncatingIfNeeded: chunk)
                    at += 3
                    index += 4
                }
                return true
            }
        }
        guard valid else {
            out.removeAll(keepingCapacity: true)
            return false
        }
        out.removeLast(padding)
        return true
    }
}
