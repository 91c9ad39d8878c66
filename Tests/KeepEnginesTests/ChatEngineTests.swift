import Foundation
import KeepCore
import KeepPorts
import Synchronization
import Testing

@testable import KeepEngines

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The chat engines")
struct ChatEngineTests {
    private static func question(_ text: String) -> [ChatMessage] {
        [ChatMessage(role: .user, text: text, time: Date())]
    }

    /// The echo engine's answer to `conversation`, its pieces to `receive`.
    private static func echo(
        _ conversation: [ChatMessage], receive: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(EngineError) -> String {
        try await EchoEngine().answer(to: conversation, options: EngineOptions(), receive: receive).text
    }

    @Test(
        "the echo engine answers at once, the same way every time, streamed in pieces",
        arguments: [
            "hello", "a question with  two spaces", "line one\nline two", "ünïcödé 🙂",
        ])
    func echoAnswers(text: String) async throws {
        let pieces = Mutex<[String]>([])
        let answer = try await Self.echo(Self.question(text)) { piece in
            pieces.withLock { $0.append(piece) }
        }
        #expect(answer == "echo: \(text)")
        let received = pieces.withLock { $0 }
        #expect(received.joined() == answer, "the pieces are the answer")
        #expect(received.count > 1, "streamed, not all at once")
        #expect(try await Self.echo(Self.question(text)) == answer)
    }

    @Test("the echo engine answers the last question of the conversation")
    func echoAnswersTheLastQuestion() async throws {
        let conversation = [
            ChatMessage(role: .user, text: "first", time: Date()),
            ChatMessage(role: .assistant, text: "echo: first", time: Date()),
            ChatMessage(role: .user, text: "second", time: Date()),
        ]
        #expect(try await Self.echo(conversation) == "echo: second")
    }

    @Test("a cancelled answer throws cancelled, and is not an answer")
    func echoCancelled() async throws {
        let task = Task { () async throws(EngineError) -> String in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Self.echo(Self.question("never finished"))
        }
        await #expect(throws: EngineError.cancelled) { try await task.value }
    }

    // MARK: - The remote engine's request

    /// The request as it is sent (the key's header built then), to `baseURL`.
    private static func request(
        apiKey: String?, baseURL: String = "http://127.0.0.1:8080/v1"
    ) throws
        -> URLRequest
    {
        try RemoteEngine.request(
            baseURL: baseURL, model: "m", temperature: 0.3, conversation: question("hi"), apiKey: APIKey(apiKey),
            keyRef: SecretRef(.openai)
        ).sending(userAgent: "keep/test")
    }

    @Test("with no key, or an empty one, the request has no Authorization header at all", arguments: [nil, ""])
    func noKeyNoHeader(key: String?) throws {
        let request = try Self.request(apiKey: key)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json", "headers are read")
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(request.allHTTPHeaderFields?.keys.contains { $0.lowercased() == "authorization" } == false)
    }

    @Test("with a key, the request carries it as a bearer token: the pair")
    func keyBecomesBearer() throws {
        #expect(try Self.request(apiKey: "sk-1").value(forHTTPHeaderField: "Authorization") == "Bearer sk-1")
    }

    @Test("a key with a line break is refused, naming the slot and never the key")
    func keyWithLineBreak() throws {
        #expect {
            try Self.request(apiKey: "sk-secret\r\nX-Evil: 1")
        } throws: { error in
            let error = error as? EngineError
            return error?.code == .configuration && error?.message.contains("openai/\"default\"") == true
                && error?.message.contains("sk-secret") == false
        }
    }

    @Test(
        "the request goes to {baseUrl}/chat/completions, streaming, with the model and temperature",
        arguments: [
            "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1//",
        ])
    func requestShape(baseURL: String) throws {
        let request = try Self.request(apiKey: nil, baseURL: baseURL)
        #expect(request.url?.absoluteString == "http://127.0.0.1:8080/v1/chat/completions")
        #expect(request.httpMethod == "POST")
        let body = try #require(request.httpBody)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"messages":[{"content":"hi","role":"user"}],"model":"m","stream":true,"#
                + #""stream_options":{"include_usage":true},"temperature":0.3}"#)
    }

    @Test("a base URL that is not http(s) is a configuration error", arguments: ["ftp://host/v1", "not a url", ""])
    func badBaseURL(baseURL: String) {
        #expect(throws: EngineError.self) { try Self.request(apiKey: nil, baseURL: baseURL) }
    }

    @Test("a server's message is shown on one line, cut short, with the key blanked out")
    func serverMessages() {
        #expect(
            RemoteEngine.oneLine("bad key sk-abc\nsee docs", hiding: APIKey("sk-abc")) == "bad key [your key] see docs")
        #expect(RemoteEngine.oneLine(String(repeating: "x", count: 400), hiding: nil).count == 300)
    }

    @Test("a key that cannot be sent is a remedy naming its ref, never a command line the engine wrote")
    func keyRemedyIsAValue() throws {
        #expect {
            try Self.request(apiKey: "sk-secret\nX-Evil: 1")
        } throws: { error in
            let error = error as? EngineError
            return error?.remedy == .replaceKey(SecretRef(.openai)) && error?.message.contains("keep key") == false
        }
    }

    @Test("a user name and password in the base URL never reach a message")
    func credentialsInTheURL() {
        let engine = RemoteEngine(
            baseURL: "https://user:hunter2@example.com/v1", model: "m", temperature: 0, keyRef: SecretRef(.openai)
        ) { () async throws(EngineError) in nil }
        #expect(engine.displayURL == "https://example.com/v1")
        #expect(engine.endpoint?.server == "https://example.com/v1", "the endpoint shows the same address")
    }

    @Test("an engine says where it asks through its protocol: the remote engine its server, model and key")
    func endpoints() {
        let remote: any ChatEngine = RemoteEngine(
            baseURL: "http://127.0.0.1:8080/v1", model: "m", temperature: 0, keyRef: SecretRef(.openrouter)
        ) { () async throws(EngineError) in nil }
        #expect(
            remote.endpoint
                == EngineEndpoint(
                    name: "default", server: "http://127.0.0.1:8080/v1", model: "m", keyRef: SecretRef(.openrouter)))
        let echo: any ChatEngine = EchoEngine()
        #expect(echo.endpoint == nil, "the echo asks no server")
    }
}
