/// A payload as a store keeps it: sealed, opaque, and safe to write to disk.
///
/// The bytes are a format byte, the 12-byte nonce, the ciphertext and the 16-byte
/// authentication tag. A store takes and returns only these (with the subject hash and
/// the bookkeeping beside them), so it never sees what it keeps.
public struct SealedPayload: Hashable, Sendable {
    /// The bytes to store, exactly as ``SealingPort/seal(_:for:)`` made them.
    public let bytes: [UInt8]

    /// The format this build writes: AES-256-GCM, 96-bit nonce, 128-bit tag, the row's time
    /// bound too (``SealBinding``).
    package static let format: UInt8 = 2
    /// The formats this build opens: 1 (sealed before times were bound) and 2. Both have
    /// the same layout; they differ in what the associated data binds.
    package static let formats: ClosedRange<UInt8> = 1...2
    // Computed, not stored: a stored constant of another module is read through a lazy
    // initialiser's check on every use, and these are read for every record opened.
    package static var nonceCount: Int { 12 }
    package static var tagCount: Int { 16 }
    /// Format byte, nonce and tag: what a sealed empty payload weighs.
    package static var overhead: Int { 1 + nonceCount + tagCount }

    /// A payload read back from a store; a typed ``SealingError/Code/malformed`` error
    /// when the bytes are too short or of a format this build does not know. Whether
    /// they are authentic is for ``SealingPort/open(_:for:)`` to say.
    public init(bytes: [UInt8]) throws(SealingError) {
        guard bytes.count >= Self.overhead else {
            throw SealingError(
                code: .malformed, operation: "sealed payload",
                detail: "\(bytes.count) bytes is shorter than any sealed payload (\(Self.overhead))")
        }
        guard Self.formats.contains(bytes[0]) else {
            throw SealingError(
                code: .malformed, operation: "sealed payload",
                detail: "format \(bytes[0]) is not one this build can open (it writes format \(Self.format))")
        }
        self.bytes = bytes
    }

    /// Wraps bytes the sealer has just made; no checks.
    package init(sealed bytes: [UInt8]) {
        self.bytes = bytes
    }
}
