/// A secret on its way into the keyring: a user's text, or an app key's raw bytes.
enum SecretPayload: Sendable {
    case text(String)
    case bytes([UInt8])

    /// The content type the item records, so other clients know how to show it.
    var contentType: String {
        switch self {
        case .text: "text/plain"
        case .bytes: "application/octet-stream"
        }
    }

    /// Calls `body` with the payload's bytes, without copying them first.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch self {
        case .text(var text): text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        case .bytes(let bytes): bytes.withUnsafeBytes(body)
        }
    }
}
