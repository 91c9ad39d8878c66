import Foundation
import KeepCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Anthropic's Messages API: `POST {url}/messages`, the key in `x-api-key`, the version in
/// `anthropic-version`, the system prompt in `system`, images as base64 `image` blocks.
///
/// A streamed answer is a sequence of named events: `message_start` (the prompt's tokens),
/// `content_block_start`, `content_block_delta` with a `text_delta` (the text), `ping`,
/// `content_block_stop`, `message_delta` (the stop reason and the answer's tokens) and
/// `message_stop`; an `error` event carries `{"error": {"type", "message"}}`, as an error
/// body does. `max_tokens` is required by the API: without a cap keep asks for
/// ``defaultMaxTokens``. Its temperature runs from 0 to 1, so a higher one is sent as 1.
struct AnthropicWire: ServerWire {
    /// The API version keep speaks.
    static let version = "2023-06-01"
    /// The answer's cap when the question sets none (the API requires one).
    static let defaultMaxTokens = 8192

    func suffix(model: String) -> String { "/messages" }

    var keyHeader: OutgoingRequest.KeyHeader { OutgoingRequest.KeyHeader(name: "x-api-key") }
    var headers: [String: String] { ["anthropic-version": Self.version] }

    func body(_ prompt: WirePrompt) throws -> Data {
        let messages: [[String: Any]] = prompt.messages.map { message in
            guard !message.attachments.isEmpty else { return ["role": message.role.rawValue, "content": message.text] }
            let images: [[String: Any]] = message.attachments.map {
                [
                    "type": "image",
                    "source": [
                        "type": "base64", "media_type": $0.mediaType, "data": Data($0.bytes).base64EncodedString(),
                    ],
                ]
            }
            return ["role": message.role.rawValue, "content": images + [["type": "text", "text": message.text]]]
        }
        var body: [String: Any] = [
            "model": prompt.model, "messages": messages, "stream": true,
            "max_tokens": prompt.maxTokens ?? Self.defaultMaxTokens, "temperature": min(prompt.temperature, 1),
        ]
        if let system = prompt.system { body["system"] = system }
        return try WireJSON.encode(body)
    }

    /// One event as Anthropic sends it; the fields keep reads.
    private struct Event: Decodable {
        struct Delta: Decodable {
            let type: String?
            let text: String?
            let stopReason: String?

            enum CodingKeys: String, CodingKey {
                case type, text
                case stopReason = "stop_reason"
            }
        }

        /// `input_tokens` and `output_tokens`.
        enum UsageNames: TokenCountNames {
            static let prompt = "input_tokens"
            static let completion = "output_tokens"
        }

        typealias Usage = TokenCounts<UsageNames>

        struct Message: Decodable {
            let usage: Usage?
        }

        struct Failure: Decodable {
            let message: String?
        }

        let type: String
        let delta: Delta?
        let usage: Usage?
        let message: Message?
        let error: Failure?
    }

    func chunk(_ event: ServerSentEventParser.Event) throws(WireFailure) -> WireChunk {
        guard let read = try? JSONDecoder().decode(Event.self, from: Data(event.data.utf8)) else {
            throw .notThisProtocol
        }
        switch read.type {
        case "message_start":
            return WireChunk(
                promptTokens: read.message?.usage?.prompt, completionTokens: read.message?.usage?.completion)
        case "content_block_delta":
            return WireChunk(text: read.delta?.type == "text_delta" ? read.delta?.text ?? "" : "")
        case "message_delta":
            return WireChunk(
                promptTokens: read.usage?.prompt, completionTokens: read.usage?.completion,
                isFinal: read.delta?.stopReason != nil)
        case "message_stop":
            return WireChunk(isFinal: true, isEnd: true)
        case "error":
            throw .reported(read.error?.message)
        default:
            // ping, content_block_start, content_block_stop, and events added later.
            return WireChunk()
        }
    }

    /// A whole message: `{"type": "message", "content": [{"type": "text", "text": …}], "usage": …}`.
    private struct Whole: Decodable {
        struct Block: Decodable {
            let type: String
            let text: String?
        }

        let type: String
        let content: [Block]
        let usage: Event.Usage?
    }

    func whole(_ body: Data) -> WireChunk? {
        guard let message = try? JSONDecoder().decode(Whole.self, from: body), message.type == "message" else {
            return nil
        }
        let text = message.content.filter { $0.type == "text" }.compactMap(\.text).joined()
        return WireChunk(
            text: text, promptTokens: message.usage?.prompt, completionTokens: message.usage?.completion,
            isFinal: true, isEnd: true)
    }

    func errorMessage(_ body: Data) -> String? {
        ChatCompletionsWire.ErrorBody.message(in: body)
    }
}
