import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import Synchronization
import Testing

@testable import KeepApp
@testable import KeepConversation
@testable import KeepEngines
@testable import KeepReports

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a question is asked with (model, system prompt, max tokens, piped text) and what
/// comes back with the answer (model, server, usage), below the command line.
@Suite("A question's options and its answer's origin")
struct QuestionOptionsTests {
    private static func body(_ request: OutgoingRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any])
    }

    @Test("the request asks for usage with the stream, sends max_tokens only when capped, and the system prompt first")
    func requestBody() throws {
        let conversation = [
            ChatMessage(role: .system, text: "be brief", time: Date()),
            ChatMessage(role: .user, text: "hi", time: Date()),
        ]
        let capped = try Self.body(
            RemoteEngine.request(
                baseURL: "http://127.0.0.1:8080/v1", model: "m", temperature: 0.3, conversation: conversation,
                apiKey: nil, keyRef: SecretRef(.openai), maxTokens: 64))
        #expect(capped["max_tokens"] as? Int == 64)
        #expect(capped["stream_options"] as? [String: Bool] == ["include_usage": true])
        #expect(
            capped["messages"] as? [[String: String]] == [
                ["role": "system", "content": "be brief"], ["role": "user", "content": "hi"],
            ])
        let uncapped = try Self.body(
            RemoteEngine.request(
                baseURL: "http://127.0.0.1:8080/v1", model: "m", temperature: 0.3, conversation: conversation,
                apiKey: nil, keyRef: SecretRef(.openai)))
        #expect(uncapped["max_tokens"] == nil, "no cap is no field, not null")
        #expect(uncapped.keys.contains("stream_options"), "the same check sees the fields that are there")
    }

    @Test(
        "a chunk's usage is read; one of another shape is no usage, and never breaks the answer",
        arguments: [
            (
                #"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}"#,
                TokenUsage(promptTokens: 9, completionTokens: 2) as TokenUsage?
            ),
            (#"{"choices":[{"delta":{"content":"x"}}],"usage":null}"#, nil),
            (#"{"choices":[{"delta":{"content":"x"}}],"usage":"lots"}"#, nil),
            (#"{"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":2}}"#, nil),
            (#"{"choices":[],"usage":{"prompt_tokens":"9","completion_tokens":2}}"#, nil),
            (#"{"choices":[{"delta":{"content":"x"}}]}"#, nil),
        ])
    func usageChunks(json: String, usage: TokenUsage?) throws {
        let chunk = try JSONDecoder().decode(ChatCompletionsWire.Chunk.self, from: Data(json.utf8))
        #expect(chunk.usage?.tokens == usage)
    }

    @Test(
        "piped text is joined after the question between <stdin> lines; blank piped text adds nothing",
        arguments: [
            ("summarize", "a\nb\n", "summarize\n\n<stdin>\na\nb\n</stdin>"),
            ("summarize", "a\r\n\n\n", "summarize\n\n<stdin>\na\n</stdin>"),
            ("summarize", "  keeps its spaces  ", "summarize\n\n<stdin>\n  keeps its spaces  \n</stdin>"),
            ("summarize", "", "summarize"),
            ("summarize", " \n\t\n", "summarize"),
        ])
    func pipedInput(question: String, piped: String, joined: String) {
        #expect(PipedInput.joined(question: question, piped: piped) == joined)
    }

    @Test(
        "the system prompt sent is the turn's, else the chat's own, else the setting's; an empty one sends none",
        arguments: [
            (nil, nil, nil, nil), (nil, nil, "setting", "setting"), (nil, "chat", "setting", "chat"),
            ("turn", "chat", "setting", "turn"), ("", "chat", "setting", nil), (nil, "", "setting", nil),
            (nil, nil, "", nil),
        ] as [(String?, String?, String?, String?)])
    func systemPromptOrder(turn: String?, chat: String?, setting: String?, sent: String?) {
        let options = TurnOptions(system: turn, defaultSystem: setting)
        #expect(options.systemPrompt(for: Chat(id: "c", created: Date(), system: chat)) == sent)
    }

    @Test("options come from the flags over the settings; maxTokens 0 sends no cap")
    func optionsOverSettings() async throws {
        let settings = SettingsStore(storage: MemoryStorage(), secrets: MemorySecrets(), defs: SettingRegistry.defs)
        try await settings.load()
        #expect(TurnOptions.given(settings: settings).engine == EngineOptions())
        #expect(TurnOptions.given(settings: settings).defaultSystem == "")
        try await settings.set("maxTokens", .number(300))
        try await settings.set("system", .string("be brief"))
        let fromSettings = TurnOptions.given(settings: settings)
        #expect(fromSettings.engine.maxTokens == 300)
        #expect(fromSettings.defaultSystem == "be brief" && fromSettings.system == nil)
        let flags = TurnOptions.given(model: "m", temperature: 1, maxTokens: 0, system: "s", settings: settings)
        #expect(flags.engine == EngineOptions(model: "m", temperature: 1, maxTokens: nil))
        #expect(flags.system == "s")
    }

    @Test(
        "the maxTokens setting takes a whole number from 0 up, and refuses fractions, negatives and text",
        arguments: [
            (SettingValue.number(0), true), (.number(4096), true), (.number(1.5), false), (.number(-1), false),
            (.number(Double(SettingRegistry.maxTokensLimit) + 1), false), (.string("many"), false),
            (.number(.infinity), false),
        ])
    func maxTokensRule(value: SettingValue, accepted: Bool) {
        #expect((SettingRegistry.maxTokens.validator?.validate(value) != nil) == accepted)
    }

    @Test("a turn keeps the model, server and usage the engine reported, and the options reach the engine")
    func turnRecordsOrigin() async throws {
        let directory = try TemporaryDirectory()
        let engine = ReportingEngine()
        let runner = TurnRunner(
            storage: try Platform.storageFor(root: directory.path) { _ in }, lock: StoreLock(root: directory.path),
            engine: engine)
        let session = try await runner.begin("q", in: nil)
        let options = TurnOptions(engine: EngineOptions(model: "asked", maxTokens: 5), system: "be brief")
        let chat = try await runner.answer("q", in: session, options: options) { _ in }
        let answer = try #require(chat.messages.last)
        #expect(answer.model == "asked" && answer.server == "http://example.test/v1")
        #expect(answer.usage == TokenUsage(promptTokens: 3, completionTokens: 1))
        #expect(chat.system == "be brief")
        let (seen, conversation) = engine.seen.withLock { $0 }
        #expect(seen == EngineOptions(model: "asked", maxTokens: 5))
        #expect(conversation.map(\.role) == [.system, .user])
        #expect(try await runner.chats.read(chat.id) == chat, "as stored")
    }

    @Test("usage is summed per model, most tokens first; answers without a model are left out, without usage counted")
    func usageReport() {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let old = now.addingTimeInterval(-10 * 86_400)
        func answer(_ model: String?, _ usage: TokenUsage?, at time: Date = now) -> ChatMessage {
            ChatMessage(role: .assistant, text: "a", time: time, model: model, usage: usage)
        }
        let chat = Chat(
            id: "c",
            messages: [
                ChatMessage(role: .user, text: "q", time: now),
                answer("small", TokenUsage(promptTokens: 1, completionTokens: 1)),
                answer("big", TokenUsage(promptTokens: 10, completionTokens: 5)), answer("big", nil),
                answer(nil, TokenUsage(promptTokens: 100, completionTokens: 100)),
                answer("big", TokenUsage(promptTokens: 1000, completionTokens: 0), at: old),
            ], created: old)
        let all = UsageReport(chats: [chat], now: now)
        #expect(all.models.map(\.model) == ["big", "small"])
        #expect(all.models.first?.answers == 3 && all.models.first?.uncounted == 1)
        #expect(all.models.first?.total == 1015)
        #expect(all.total.answers == 4 && all.total.total == 1017, "the answer with no model is not counted")
        #expect(all.days == nil && all.since == nil)
        let week = UsageReport(chats: [chat], days: 7, now: now)
        #expect(week.models.first?.total == 15, "the answer ten days old is left out")
        #expect(week.days == 7 && week.since != nil)
    }
}

/// An engine that reports where its answer came from and remembers what it was asked with.
private final class ReportingEngine: ChatEngine {
    let id = "reporting"
    let seen = Mutex<(EngineOptions?, [ChatMessage])>((nil, []))

    func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply {
        seen.withLock { $0 = (options, conversation) }
        return EngineReply(
            text: "a", model: options.model, server: "http://example.test/v1",
            usage: TokenUsage(promptTokens: 3, completionTokens: 1))
    }
}
