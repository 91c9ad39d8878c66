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
