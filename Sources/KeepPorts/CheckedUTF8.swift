#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension String {
    /// `bytes` as a string when they are valid UTF-8, `nil` when they are not: what
    /// `String(validating:as:)` answers, without the cost of its generic path (a metadata
    /// lookup on every call, which reading tens of thousands of names or rows pays for
    /// each one).
    ///
    /// Decoding replaces every invalid sequence with U+FFFD, so the decoded bytes are the
    /// given ones exactly when they were valid.
    package init?(checkedUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        var decoded = String(decoding: bytes, as: UTF8.self)
        let unchanged = decoded.withUTF8 { utf8 in
            utf8.count == bytes.count
                && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        guard unchanged else { return nil }
        self = decoded
    }

    /// The array's bytes as a string when they are valid UTF-8 (see the buffer's form).
    package init?(checkedUTF8 bytes: [UInt8]) {
        guard let text = bytes.withUnsafeBufferPointer({ String(checkedUTF8: $0) }) else { return nil }
        self = text
    }
}

// MARK: - Validity without a string

extension String {
    /// Whether `bytes` are valid UTF-8, in one pass over them and without making a string:
    /// the answer `String(validating:as:)` gives (Unicode's well-formed sequences only: no
    /// overlong form, no surrogate, nothing past U+10FFFF, no sequence cut short), for bytes
    /// that are to become a string's own storage rather than be copied into one.
    ///
    /// Plain ASCII, nearly all of a chat, is passed over eight bytes at a time.
    package static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            // Eight bytes at a time while none has its top bit set; then on to the first that does.
            while index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let high = word & 0x8080_8080_8080_8080
                guard high == 0 else {
                    index += high.trailingZeroBitCount / 8
                    break
                }
                index += 8
            }
            guard index < count else { return true }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The lead byte says the length, and the range of the byte after it (Unicode's
            // table of well-formed sequences): the rest are continuation bytes, 80 to BF.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0  // below: an overlong form
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F  // above: a surrogate
            case 0xF0:
                length = 4
                low = 0x90  // below: an overlong form
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F  // above: past U+10FFFF
            default: return false  // a continuation byte, an overlong lead (C0, C1) or F5 to FF
            }
            guard count - index >= length, base[index + 1] >= low, base[index + 1] <= high else { return false }
            for offset in 2..<length where base[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
