import Foundation
import KeepCore
import KeepPorts
import Testing

@testable import KeepEngines

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each protocol's request and events, as its public documentation gives them.
@Suite("The wires of the three protocols")
struct WireTests {
    private let now = Date(timeIntervalSince1970: 0)

    private func conversation(image: Bool = false) -> [ChatMessage] {
        let png = Attachment(name: "a.png", mediaType: "image/png", bytes: [0x89, 0x50])
        return [
            ChatMessage(role: .system, text: "be brief", time: now),
            ChatMessage(role: .user, text: "hi", time: now), ChatMessage(role: .assistant, text: "hello", time: now),
            ChatMessage(role: .user, text: "again", time: now, attachments: image ? [png] : []),
        ]
    }

    /// The request as it is sent: the key's header built, as the transport builds it.
    private func request(_ wire: ServerProtocol, image: Bool = false) throws -> URLRequest {
        try RemoteEngine.request(
            baseURL: "https://api.example.com/v1/", model: "m1", temperature: 1.5,
            conversation: conversation(image: image),
            apiKey: APIKey("secret-key"), keyRef: SecretRef(wire.defaultSlot), askUsage: false, wire: wire
        ).sending(userAgent: "keep/test")
    }

    private func body(_ request: URLRequest) throws -> [String: Any] {
        let data = try #require(request.httpBody)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("Anthropic: POST /messages, the key in x-api-key, the version, system apart, temperature at most 1")
    func anthropicRequest() throws {
        let request = try request(.anthropic)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/messages")
        #expect(request.value(forHTTPHeaderField: "x-api-key") == "secret-key")
        #expect(request.value(forHTTPHeaderField: "anthropic-version") == "2023-06-01")
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        let body = try body(request)
        #expect(body["system"] as? String == "be brief")
        #expect(body["temperature"] as? Double == 1)
        #expect(body["max_tokens"] as? Int == AnthropicWire.defaultMaxTokens)
        #expect((body["messages"] as? [[String: Any]])?.count == 3)
    }

    @Test("Gemini: the model in the path, alt=sse, the key in x-goog-api-key and never in the URL")
    func geminiRequest() throws {
        let request = try request(.gemini)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/models/m1:streamGenerateContent?alt=sse")
        #expect(request.value(forHTTPHeaderField: "x-goog-api-key") == "secret-key")
        #expect(request.url?.absoluteString.contains("secret") == false)
        let body = try body(request)
        let contents = try #require(body["contents"] as? [[String: Any]])
        #expect(contents.map { $0["role"] as? String } == ["user", "model", "user"])
        #expect((body["generationConfig"] as? [String: Any])?["temperature"] as? Double == 1.5)
    }

    @Test("OpenAI: the key as Bearer, the system prompt as the first message")
    func openAIRequest() throws {
        let request = try request(.openai)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/chat/completions")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer secret-key")
        let messages = try #require(try body(request)["messages"] as? [[String: Any]])
        #expect(messages.first?["role"] as? String == "system")
    }

    @Test("an image goes as each protocol's own part", arguments: ServerProtocol.allCases)
    func imageParts(wire: ServerProtocol) throws {
        let text = String(decoding: try #require(try request(wire, image: true).httpBody), as: UTF8.self)
        switch wire {
        case .openai: #expect(text.contains(#""image_url":{"url":"data:image/png;base64,iVA="}"#))
        case .anthropic: #expect(text.contains(#""source":{"data":"iVA=","media_type":"image/png","type":"base64"}"#))
        case .gemini: #expect(text.contains(#""inlineData":{"data":"iVA=","mimeType":"image/png"}"#))
        }
        let plain = String(decoding: try #require(try request(wire).httpBody), as: UTF8.self)
        #expect(!plain.contains("iVA="), "without an image, none is sent")
    }

    @Test("Anthropic's events give the text, the usage, and the end; its error event is an error")
    func anthropicEvents() throws {
        let wire = AnthropicWire()
        func event(_ data: String) -> ServerSentEventParser.Event { .init(type: nil, data: data) }
        let start = try wire.chunk(
            event(#"{"type":"message_start","message":{"usage":{"input_tokens":9,"output_tokens":1}}}"#))
        #expect(start.promptTokens == 9)
        let delta = try wire.chunk(
            event(#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#))
        #expect(delta.text == "Hi")
        #expect(try wire.chunk(event(#"{"type":"ping"}"#)) == WireChunk())
        let last = try wire.chunk(
            event(#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#))
        #expect(last.isFinal && last.completionTokens == 4)
        #expect(try wire.chunk(event(#"{"type":"message_stop"}"#)).isEnd)
        #expect(throws: WireFailure.reported("Overloaded")) {
            try wire.chunk(event(#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#))
        }
    }

    @Test("Gemini's responses give the text, the finish and the usage; a blocked prompt is an error")
    func geminiEvents() throws {
        let wire = GeminiWire()
        func event(_ data: String) -> ServerSentEventParser.Event { .init(type: nil, data: data) }
        let chunk = try wire.chunk(
            event(
                #"{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]},"finishReason":"STOP"}],"#
                    + #""usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}"#))
        #expect(chunk.text == "ab" && chunk.isFinal && chunk.promptTokens == 3 && chunk.completionTokens == 2)
        #expect(throws: WireFailure.self) { try wire.chunk(event(#"{"promptFeedback":{"blockReason":"SAFETY"}}"#)) }
        #expect(throws: WireFailure.notThisProtocol) { try wire.chunk(event(#"{"hello":1}"#)) }
        #expect(
            wire.errorMessage(Data(#"[{"error":{"code":400,"message":"bad model","status":"INVALID_ARGUMENT"}}]"#.utf8))
                == "bad model")
    }
}
