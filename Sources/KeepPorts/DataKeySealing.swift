/// What the data-key vault needs of a sealing mechanism: new data keys, and the sealer a
/// data key makes.
///
/// The vault owns the decision (which key, which rows go); the mechanism is handed to it,
/// so a platform's own cryptography (libcrypto here) is chosen by the composition root.
///
/// Promises of every implementation: ``makeKey()`` answers ``keyCount`` fresh random
/// bytes; ``sealer(for:)`` refuses a key of any other length with
/// ``SealingError/Code/malformed``, keeps no copy of the caller's bytes, and answers a
/// key check that identifies the key without revealing it or anything derived from it for
/// use (the vault stores it beside the rows).
public protocol DataKeySealing: Sendable {
    /// The length of a data key, in bytes.
    var keyCount: Int { get }

    /// A new data key.
    func makeKey() throws(SealingError) -> [UInt8]

    /// The sealer under `dataKey`, and the key's check.
    func sealer(for dataKey: [UInt8]) throws(SealingError) -> (sealer: any SealingPort, keyCheck: [UInt8])
}
