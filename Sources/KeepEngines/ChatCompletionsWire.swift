import Foundation
import KeepCore

/// The JSON of an OpenAI-compatible `POST /chat/completions`: the request keep sends, the
/// chunks a streamed answer comes in, the whole answer of a server that does not stream,
/// and the error body servers answer with.
package enum ChatCompletionsWire {
    /// The request body: the model, the conversation (a system prompt first, when there is
    /// one), the temperature, `max_tokens` when capped, and `stream: true` with
    /// `stream_options.include_usage`, so the last chunk carries the server's token count.
    struct Request: Encodable {
        struct Message: Encodable {
            let role: String
            let content: String
        }

        /// Asks a streaming server for a last chunk with the usage.
        struct StreamOptions: Encodable {
            let includeUsage = true

            enum CodingKeys: String, CodingKey {
                case includeUsage = "include_usage"
            }
        }

        let model: String
        let messages: [Message]
        let temperature: Double
        let stream: Bool
        /// Left out for a server that refuses it.
        let streamOptions: StreamOptions?
        /// Left out when `nil`.
        let maxTokens: Int?

        enum CodingKeys: String, CodingKey {
            case model, messages, temperature, stream
            case streamOptions = "stream_options"
            case maxTokens = "max_tokens"
        }

        init(
            model: String, conversation: [ChatMessage], temperature: Double, maxTokens: Int? = nil,
            askUsage: Bool = true
        ) {
            self.model = model
            streamOptions = askUsage ? StreamOptions() : nil
            messages = conversation.map { Message(role: $0.role.rawValue, content: $0.text) }
            self.temperature = temperature
            stream = true
            self.maxTokens = maxTokens
        }

        /// The body as bytes, keys sorted so the same conversation is the same request.
        func encoded() throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(self)
        }
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
        struct Usage: Decodable {
            let promptTokens: Int?
            let completionTokens: Int?

            enum CodingKeys: String, CodingKey {
                case promptTokens = "prompt_tokens"
                case completionTokens = "completion_tokens"
            }

            /// Never fails: a usage of another shape is no usage, not a broken answer.
            init(from decoder: Decoder) {
                let fields = try? decoder.container(keyedBy: CodingKeys.self)
                promptTokens = try? fields?.decode(Int.self, forKey: .promptTokens)
                completionTokens = try? fields?.decode(Int.self, forKey: .completionTokens)
            }

            /// As keep keeps it; `nil` unless both counts are there and not negative.
            var tokens: TokenUsage? {
                guard let promptTokens, let completionTokens, promptTokens >= 0, completionTokens >= 0 else {
                    return nil
                }
                return TokenUsage(promptTokens: promptTokens, completionTokens: completionTokens)
            }
        }

        let choices: [Choice]?
        let error: ErrorBody?
        let usage: Usage?

        /// The text this chunk adds to the answer.
        var text: String {
            guard let choice = choices?.first else { return "" }
            return choice.delta?.content ?? choice.message?.content ?? ""
        }

        /// Whether the server said the answer is complete.
        var isFinal: Bool { choices?.first?.finishReason != nil }
    }

    /// What a server says went wrong, in whichever shape it uses: `{"error": {"message":
    /// …}}`, `{"error": "…"}`, `{"message": …}` or `{"detail": …}`.
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
            guard let body = try? JSONDecoder().decode(ErrorBody.self, from: data) else { return nil }
            return body.message
        }
    }
}
