import Foundation
import KeepCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The JSON of an OpenAI-compatible `POST /chat/completions`: the request keep sends, the
/// chunks a streamed answer comes in, the whole answer of a server that does not stream,
/// and the error body servers answer with.
struct ChatCompletionsWire: ServerWire {
    /// The request body: the model, the conversation (a system prompt first, when there is
    /// one; a question with images as text and `image_url` parts), the temperature,
    /// `max_tokens` when capped, and `stream: true` with `stream_options.include_usage`
    /// (unless the server refused it), so the last chunk carries the server's token count.
    func body(_ prompt: WirePrompt) throws -> Data {
        var messages: [[String: Any]] = []
        if let system = prompt.system { messages.append(["role": "system", "content": system]) }
        for message in prompt.messages {
            guard !message.attachments.isEmpty else {
                messages.append(["role": message.role.rawValue, "content": message.text])
                continue
            }
            let images: [[String: Any]] = message.attachments.map {
                ["type": "image_url", "image_url": ["url": WireJSON.dataURL($0)]]
            }
            messages.append([
                "role": message.role.rawValue, "content": [["type": "text", "text": message.text]] + images,
            ])
        }
        var body: [String: Any] = [
            "model": prompt.model, "messages": messages, "temperature": prompt.temperature, "stream": true,
        ]
        if prompt.askUsage { body["stream_options"] = ["include_usage": true] }
        if let cap = prompt.maxTokens { body["max_tokens"] = cap }
        return try WireJSON.encode(body)
    }

    func suffix(model: String) -> String { "/chat/completions" }

    var keyHeader: OutgoingRequest.KeyHeader { .bearer }
    var headers: [String: String] { [:] }

    func chunk(_ event: ServerSentEventParser.Event) throws(WireFailure) -> WireChunk {
        if event.data == "[DONE]" { return WireChunk(isFinal: true, isEnd: true) }
        guard let chunk = try? JSONDecoder().decode(Chunk.self, from: Data(event.data.utf8)) else {
            throw .notThisProtocol
        }
        if let error = chunk.error { throw .reported(error.message) }
        return chunk.wireChunk
    }

    func whole(_ body: Data) -> WireChunk? {
        guard let chunk = try? JSONDecoder().decode(Chunk.self, from: body), chunk.choices?.isEmpty == false else {
            return nil
        }
        var whole = chunk.wireChunk
        whole.isFinal = true
        return whole
    }

    func errorMessage(_ body: Data) -> String? {
        ErrorBody.message(in: body)
    }

    /// One streamed chunk (`choices[0].delta.content`), or a whole answer
    /// (`choices[0].message.content`); either may carry an `error` instead.
    struct Chunk: Decodable {
        struct Choice: Decodable {
            struct Content: Decodable {
                let content: String?
            }

            let delta: Content?
            let message: Content?
            let finishReason: String?

            enum CodingKeys: String, CodingKey {
                case delta, message
                case finishReason = "finish_reason"
            }
        }

        /// The server's token count: OpenAI sends it in a last chunk of its own (with no
        /// choices) when `include_usage` was asked, a whole answer carries it anyway.
        enum UsageNames: TokenCountNames {
            static let prompt = "prompt_tokens"
            static let completion = "completion_tokens"
        }

        let choices: [Choice]?
        let error: ErrorBody?
        let usage: TokenCounts<UsageNames>?

        /// The text this chunk adds to the answer.
        var text: String {
            guard let choice = choices?.first else { return "" }
            return choice.delta?.content ?? choice.message?.content ?? ""
        }

        /// Whether the server said the answer is complete.
        var isFinal: Bool { choices?.first?.finishReason != nil }

        /// What it adds to the answer.
        var wireChunk: WireChunk {
            WireChunk(
                text: text, promptTokens: usage?.tokens?.promptTokens,
                completionTokens: usage?.tokens?.completionTokens,
                isFinal: isFinal)
        }
    }

    /// What a server says went wrong, in whichever shape it uses: `{"error": {"message":
    /// …}}` (OpenAI's, Anthropic's and Gemini's), `{"error": "…"}`, `{"message": …}` or
    /// `{"detail": …}`, or an array whose first element is one (Gemini's without SSE).
    struct ErrorBody: Decodable {
        let message: String?

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        private struct Nested: Decodable {
            let message: String?
        }

        init(from decoder: Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                message = text
                return
            }
            let fields = try decoder.container(keyedBy: Key.self)
            if let nested = try? fields.decode(Nested.self, forKey: Key(stringValue: "error")) {
                message = nested.message
            } else {
                message =
                    (try? fields.decode(String.self, forKey: Key(stringValue: "error")))
                    ?? (try? fields.decode(String.self, forKey: Key(stringValue: "message")))
                    ?? (try? fields.decode(String.self, forKey: Key(stringValue: "detail")))
            }
        }

        /// The message of an error body, or `nil` when `data` is not one.
        static func message(in data: Data) -> String? {
            if let body = try? JSONDecoder().decode(ErrorBody.self, from: data) { return body.message }
            return (try? JSONDecoder().decode([ErrorBody].self, from: data))?.first?.message
        }
    }
}
