import Foundation
import KeepCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Google's Gemini API: `POST {url}/models/{model}:streamGenerateContent?alt=sse`, the key in
/// the `x-goog-api-key` header (never in the URL, where it would reach logs and messages),
/// the conversation as `contents` of `user` and `model` turns, the system prompt in
/// `systemInstruction`, images as `inlineData` parts, the temperature and cap in
/// `generationConfig`.
///
/// Each event is a whole `GenerateContentResponse`: the text of
/// `candidates[0].content.parts`, a `finishReason` once the answer is complete, and
/// `usageMetadata` (`promptTokenCount`, `candidatesTokenCount`). The stream has no closing
/// event of its own: it ends with the connection, complete once a finish reason came. A
/// prompt the server blocks says so in `promptFeedback.blockReason`; an error in the stream
/// or the body is `{"error": {"code", "message", "status"}}`.
struct GeminiWire: ServerWire {
    func suffix(model: String) -> String {
        // A model may be given as `models/NAME`, as the model list names them.
        "/models/\(ContextWindowQuery.segment(model)):streamGenerateContent?alt=sse"
    }

    var keyHeader: OutgoingRequest.KeyHeader { OutgoingRequest.KeyHeader(name: "x-goog-api-key") }
    var headers: [String: String] { [:] }

    func body(_ prompt: WirePrompt) throws -> Data {
        let contents: [[String: Any]] = prompt.messages.map { message in
            let images: [[String: Any]] = message.attachments.map {
                ["inlineData": ["mimeType": $0.mediaType, "data": Data($0.bytes).base64EncodedString()]]
            }
            return [
                "role": message.role == .assistant ? "model" : "user",
                "parts": [["text": message.text]] + images,
            ]
        }
        var config: [String: Any] = ["temperature": prompt.temperature]
        if let cap = prompt.maxTokens { config["maxOutputTokens"] = cap }
        var body: [String: Any] = ["contents": contents, "generationConfig": config]
        if let system = prompt.system { body["systemInstruction"] = ["parts": [["text": system]]] }
        return try WireJSON.encode(body)
    }

    /// A `GenerateContentResponse`, as far as keep reads it.
    private struct Response: Decodable {
        struct Candidate: Decodable {
            struct Content: Decodable {
                struct Part: Decodable {
                    let text: String?
                }

                let parts: [Part]?
            }

            let content: Content?
            let finishReason: String?
        }

        /// `promptTokenCount` and `candidatesTokenCount`.
        enum UsageNames: TokenCountNames {
            static let prompt = "promptTokenCount"
            static let completion = "candidatesTokenCount"
        }

        struct Feedback: Decodable {
            let blockReason: String?
        }

        struct Failure: Decodable {
            let message: String?
        }

        let candidates: [Candidate]?
        let usageMetadata: TokenCounts<UsageNames>?
        let promptFeedback: Feedback?
        let error: Failure?

        func chunk() throws(WireFailure) -> WireChunk {
            if let error { throw .reported(error.message) }
            if let blocked = promptFeedback?.blockReason, candidates?.isEmpty != false {
                throw .reported("the prompt was blocked (\(blocked))")
            }
            guard candidates != nil || usageMetadata != nil else { throw .notThisProtocol }
            let candidate = candidates?.first
            return WireChunk(
                text: (candidate?.content?.parts ?? []).compactMap(\.text).joined(),
                promptTokens: usageMetadata?.prompt, completionTokens: usageMetadata?.completion,
                isFinal: candidate?.finishReason != nil)
        }
    }

    func chunk(_ event: ServerSentEventParser.Event) throws(WireFailure) -> WireChunk {
        guard let response = try? JSONDecoder().decode(Response.self, from: Data(event.data.utf8)) else {
            throw .notThisProtocol
        }
        return try response.chunk()
    }

    /// A whole answer: one response, or the array of them a server without SSE sends.
    func whole(_ body: Data) -> WireChunk? {
        let responses =
            (try? JSONDecoder().decode([Response].self, from: body))
            ?? (try? JSONDecoder().decode(Response.self, from: body)).map { [$0] } ?? []
        guard !responses.isEmpty else { return nil }
        var whole = WireChunk()
        for response in responses {
            guard let chunk = try? response.chunk() else { return nil }
            whole.text += chunk.text
            whole.promptTokens = chunk.promptTokens ?? whole.promptTokens
            whole.completionTokens = chunk.completionTokens ?? whole.completionTokens
            whole.isFinal = whole.isFinal || chunk.isFinal
        }
        whole.isEnd = true
        return whole
    }

    func errorMessage(_ body: Data) -> String? {
        ChatCompletionsWire.ErrorBody.message(in: body)
    }
}
