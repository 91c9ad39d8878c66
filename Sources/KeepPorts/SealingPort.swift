/// The one way kept data is sealed: every owner seals before it asks its store, and opens
/// what its store hands back.
///
/// Promises of every implementation:
///
/// - `seal` uses a fresh nonce each time, so sealing the same payload twice never gives
///   the same bytes.
/// - `open` returns the payload only when the sealed bytes are exactly what `seal` made,
///   under the same key, for the same ``SealBinding``; anything else is a typed
///   ``SealingError`` (``SealingError/Code/notAuthentic`` for an altered, moved or
///   foreign payload) and never partial plaintext.
/// - `subjectHash` is deterministic under one key and reveals nothing about the subject
///   without it.
public protocol SealingPort: Sendable {
    /// Seals `payload` for the row described by `binding`.
    func seal(_ payload: [UInt8], for binding: SealBinding) throws(SealingError) -> SealedPayload

    /// The payload sealed in `sealed`, if it was sealed for `binding` under this key.
    func open(_ sealed: SealedPayload, for binding: SealBinding) throws(SealingError) -> [UInt8]

    /// The keyed hash that stands for `subject` in a row.
    func subjectHash(_ subject: String) throws(SealingError) -> SubjectHash
}
