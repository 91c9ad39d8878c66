import Foundation
import KeepCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One protocol's side of a request: where it goes, how the key travels, what the body
/// says, and how the server's events, whole answers and errors read. Everything else (the
/// transfer, limits, timeouts, redirects, cleartext, redaction) is ``RemoteEngine``'s, the
/// same for every protocol.
protocol ServerWire: Sendable {
    /// What is appended to a server's base URL, for messages: `/chat/completions`.
    func suffix(model: String) -> String
    /// The header this protocol carries a key in (the transport builds it when it sends).
    var keyHeader: OutgoingRequest.KeyHeader { get }
    /// The headers this protocol's requests carry besides the key's and the common ones.
    var headers: [String: String] { get }
    /// The JSON body.
    func body(_ prompt: WirePrompt) throws -> Data
    /// What one event adds; throws ``WireFailure`` for an error event or another format.
    func chunk(_ event: ServerSentEventParser.Event) throws(WireFailure) -> WireChunk
    /// A whole JSON answer (a server that did not stream), or `nil` when `body` is not one.
    func whole(_ body: Data) -> WireChunk?
    /// The message of an error body in this protocol's shape (or a common one).
    func errorMessage(_ body: Data) -> String?
}

extension ServerProtocol {
    /// The wire of this protocol.
    var wire: any ServerWire {
        switch self {
        case .openai: ChatCompletionsWire()
        case .anthropic: AnthropicWire()
        case .gemini: GeminiWire()
        }
    }
}

/// Writing a request body, for the wires.
enum WireJSON {
    /// `object` encoded with keys sorted, so the same prompt is the same request.
    static func encode(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// A JSON field's name as a coding key, for reading an object field by field.
    struct Field: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A `data:` URL of an image, as OpenAI-compatible servers take one.
    static func dataURL(_ attachment: Attachment) -> String {
        "data:\(attachment.mediaType);base64,\(Data(attachment.bytes).base64EncodedString())"
    }
}
