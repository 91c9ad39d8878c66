import Foundation
import KeepCore
import Testing

@testable import KeepEngines

/// The context budget: what of a long chat is sent, a huge chat without a budget refused,
/// and where each protocol's model list says how large a model's window is.
@Suite("The context budget")
struct ContextBudgetTests {
    private let now = Date(timeIntervalSince1970: 0)
    private let long = String(repeating: "x", count: 400)

    private func message(_ role: ChatMessage.Role, _ text: String) -> ChatMessage {
        ChatMessage(role: role, text: text, time: now)
    }

    /// `count` turns of a question and a 400-byte answer (about 100 tokens each).
    private func history(turns count: Int) -> [ChatMessage] {
        (0..<count).flatMap { [message(.user, "q\($0)"), message(.assistant, long)] }
    }

    @Test("past the budget the oldest whole turns are left out; the system prompt and the question stay")
    func oldestTurnsLeftOut() throws {
        let system = [message(.system, "sys")]
        let question = message(.user, "q3")
        let history = [
            message(.user, "q1"), message(.assistant, long), message(.user, "q2"), message(.assistant, long),
        ]
        let fitted = try ContextBudget.fit(system: system, history: history, question: question, budget: 150)
        #expect(fitted.leftOut == 1)
        #expect(fitted.messages.map(\.text) == ["sys", "q2", long, "q3"])
        let whole = try ContextBudget.fit(system: system, history: history, question: question, budget: nil)
        #expect(whole.messages == system + history + [question], "no budget sends everything")
        #expect(whole.leftOut == 0)
        let tight = try ContextBudget.fit(system: system, history: history, question: question, budget: 1)
        #expect(tight.messages.map(\.text) == ["sys", "q3"], "always the system prompt and the question")
        #expect(tight.leftOut == 2)
    }

    @Test("a budget that holds the whole chat sends it all, nothing left out")
    func roomyBudgetSendsAll() throws {
        let history = history(turns: 3)
        let fitted = try ContextBudget.fit(
            system: [], history: history, question: message(.user, "now"), budget: 10_000)
        #expect(fitted.messages.count == 7 && fitted.leftOut == 0)
    }

    @Test("a huge chat with a budget is trimmed to its newest turns, the rest only counted")
    func hugeChatTrimmed() throws {
        // 20,000 turns of about 100 tokens each: about two million tokens in all.
        let history = history(turns: 20_000)
        let fitted = try ContextBudget.fit(
            system: [message(.system, "sys")], history: history, question: message(.user, "now"), budget: 1_000,
            unbudgetedLimit: 50_000)
        #expect(fitted.messages.first?.text == "sys" && fitted.messages.last?.text == "now")
        #expect(fitted.messages.dropFirst().dropLast().map(\.text).suffix(2) == ["q19999", long])
        #expect(fitted.leftOut == 20_000 - (fitted.messages.count - 2) / 2)
        #expect(fitted.messages.map(ContextBudget.estimate).reduce(0, +) <= 1_000)
    }

    @Test("a huge chat without a budget is refused before anything is sent, in one line naming --context")
    func hugeChatWithoutBudgetRefused() throws {
        let history = history(turns: 2_000)  // about 200,000 tokens
        // The pair first: the same chat under a bound it fits is sent whole.
        let sent = try ContextBudget.fit(
            system: [], history: history, question: message(.user, "now"), budget: nil, unbudgetedLimit: 1_000_000)
        #expect(sent.messages.count == 4_001)
        let error = #expect(throws: EngineError.self) {
            try ContextBudget.fit(
                system: [], history: history, question: message(.user, "now"), budget: nil, unbudgetedLimit: 50_000)
        }
        #expect(error?.code == .tooLarge)
        let line = error?.description ?? ""
        #expect(line.contains("--context TOKENS") && line.contains("50,000") && !line.contains("\n"), "\(line)")
    }

    // MARK: - Windows in model lists

    private func window(_ wire: ServerProtocol, model: String, _ body: String) -> Int? {
        ContextWindowQuery(wire: wire, server: "https://api.example.com/v1/", model: model)?
            .window(in: Array(body.utf8))
    }

    @Test("each protocol's model description is asked where it lives, the model's name one escaped segment")
    func queryURLs() throws {
        let openai = try #require(ContextWindowQuery(wire: .openai, server: "https://h.example/v1/", model: "a/b"))
        #expect(openai.url.absoluteString == "https://h.example/v1/models")
        let anthropic = try #require(
            ContextWindowQuery(wire: .anthropic, server: "https://h.example/v1", model: "claude-x"))
        #expect(anthropic.url.absoluteString == "https://h.example/v1/models/claude-x")
        let gemini = try #require(
            ContextWindowQuery(wire: .gemini, server: "https://h.example/v1beta", model: "models/gemini-2.5?x=1"))
        #expect(gemini.url.absoluteString == "https://h.example/v1beta/models/gemini-2.5%3Fx%3D1")
        #expect(ContextWindowQuery(wire: .openai, server: "ftp://h.example", model: "m") == nil)
        #expect(ContextWindowQuery(wire: .openai, server: "https://h.example", model: "") == nil)
    }

    @Test(
        "an OpenAI-compatible list gives the listed model's window in each server's spelling, the smallest when several",
        arguments: [
            (#"{"id":"m","context_length":131072}"#, 131_072),  // OpenRouter
            (#"{"id":"m","max_model_len":8192,"owned_by":"vllm"}"#, 8_192),  // vLLM
            (#"{"id":"m","context_window":32768}"#, 32_768),  // Groq
            (#"{"id":"m","max_context_length":4096}"#, 4_096),  // LM Studio's own API
            (#"{"id":"m","context_length":200000,"top_provider":{"context_length":64000}}"#, 64_000),
        ])
    func openAIWindows(entry: String, tokens: Int) {
        let body = #"{"object":"list","data":[{"id":"other","context_length":5},\#(entry)]}"#
        #expect(window(.openai, model: "m", body) == tokens)
    }

    @Test(
        "a list without a window, without the model, or with a window that is not a whole count gives none",
        arguments: [
            #"{"data":[{"id":"m","object":"model","owned_by":"me"}]}"#,
            #"{"data":[{"id":"other","context_length":8192}]}"#,
            #"{"data":[{"id":"m","context_length":"8192"}]}"#,
            #"{"data":[{"id":"m","context_length":0}]}"#,
            #"{"data":[{"id":"m","context_length":8192.5}]}"#,
            #"{"data":[{"id":"m","context_length":true}]}"#,
            #"{"data":[{"id":"m","context_length":1000000000000}]}"#,
            #"not json"#, #"[]"#,
        ])
    func openAIWithoutWindow(body: String) {
        #expect(window(.openai, model: "m", body) == nil)
    }

    @Test("Anthropic's model object gives max_input_tokens; an older one with no window gives none")
    func anthropicWindow() {
        let newer = #"{"id":"claude-x","type":"model","display_name":"X","max_input_tokens":200000,"max_tokens":64000}"#
        #expect(window(.anthropic, model: "claude-x", newer) == 200_000)
        let older = #"{"id":"claude-x","type":"model","display_name":"X","created_at":"2025-01-01T00:00:00Z"}"#
        #expect(window(.anthropic, model: "claude-x", older) == nil)
    }

    @Test("Gemini's model resource gives inputTokenLimit, not its outputTokenLimit")
    func geminiWindow() {
        let model = #"{"name":"models/gemini-x","inputTokenLimit":1048576,"outputTokenLimit":65536}"#
        #expect(window(.gemini, model: "gemini-x", model) == 1_048_576)
        #expect(window(.gemini, model: "gemini-x", #"{"name":"models/gemini-x","outputTokenLimit":8}"#) == nil)
    }
}
