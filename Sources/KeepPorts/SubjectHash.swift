/// What a row is about (a server, a stack), kept only as a keyed hash: HMAC-SHA256 under a
/// key derived from the data key, so a row on disk cannot be tied to its subject without
/// that key.
///
/// Made by ``SealingPort/subjectHash(_:)``, or read back from a row with
/// ``init(bytes:)``, which refuses anything but 32 bytes. The same subject gives the same
/// hash under the same data key, so an owner can find and forget a subject's rows.
public struct SubjectHash: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes of the hash, as stored beside the sealed payload.
    public let bytes: [UInt8]

    /// The length of a subject hash: one SHA-256 output.
    public static let byteCount = 32

    /// A hash read back from a row; a typed ``SealingError/Code/malformed`` error unless
    /// it is exactly 32 bytes.
    public init(bytes: [UInt8]) throws(SealingError) {
        guard bytes.count == Self.byteCount else {
            throw SealingError(
                code: .malformed, operation: "subject hash",
                detail: "a subject hash is \(Self.byteCount) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// The first four bytes in hex: enough to tell hashes apart in a log, and no more.
    public var description: String {
        "SubjectHash(" + bytes.prefix(4).map { String($0, radix: 16).leftPadded(to: 2) }.joined() + "…)"
    }
}

extension String {
    /// `self` with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
