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

    /// The bytes `text` encodes, or `nil` when it is not canonical base64 (a length that is
    /// not a multiple of 4, a byte outside the alphabet, padding anywhere but at the end).
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var padding = 0
        if text.count >= 4, text[text.count - 1] == UInt8(ascii: "=") { padding += 1 }
        if text.count >= 4, text[text.count - 2] == UInt8(ascii: "=") { padding += 1 }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var index = 0
        while index < text.count {
            var chunk: UInt32 = 0
            for offset in 0..<4 {
                let byte = text[index + offset]
                let isPadding = index + 4 == text.count && offset >= 4 - padding
                let value = isPadding ? 0 : values[Int(byte)]
                guard value != 0xFF else { return nil }
                chunk = chunk << 6 | UInt32(value)
            }
            out.append(UInt8(chunk >> 16 & 0xFF))
            out.append(UInt8(chunk >> 8 & 0xFF))
            out.append(UInt8(chunk & 0xFF))
            index += 4
        }
        out.removeLast(padding)
        return out
    }
}
