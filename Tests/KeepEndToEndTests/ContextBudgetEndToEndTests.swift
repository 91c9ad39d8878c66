import Foundation
import Testing

/// The context budget read from a server's model list, per protocol, through `keep`: the
/// loopback servers answer the model description each protocol's documentation gives and
/// record the GET and every question.
@Suite("A context budget from the server's model list, end to end")
struct ContextBudgetEndToEndTests {
    /// One protocol's server, as a test of it needs it.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        let keyVariable: String
        let describedAt: String
        let description: String
        let handler: @Sendable ([String]) -> LoopbackServer.Handler
        /// The system prompt as the question's body carries it.
        let system: @Sendable ([String: Any]) -> String?
        /// The texts of the question's messages, oldest first.
        let texts: @Sendable ([String: Any]) -> [String]
        /// The key header of the GET, and its value for `key`.
        let keyHeader: String
        let keyValue: @Sendable (String) -> String

        var testDescription: String { name }
    }

    static let window = 1_500

    static let cases: [Case] = [
        Case(
            name: "openai", arguments: ["--protocol", "openai", "-m", "test-model"], keyVariable: "OPENAI_API_KEY",
            describedAt: "/v1/models",
            description:
                #"{"object":"list","data":[{"id":"other","context_length":99},"#
                + #"{"id":"test-model","object":"model","context_length":\#(window)}]}"#,
            handler: { LoopbackServer.streaming($0) },
            system: {
                (($0["messages"] as? [[String: Any]])?.first { $0["role"] as? String == "system" })?["content"]
                    as? String
            },
            texts: { (($0["messages"] as? [[String: Any]]) ?? []).compactMap { $0["content"] as? String } },
            keyHeader: "Authorization", keyValue: { "Bearer \($0)" }),
        Case(
            name: "anthropic", arguments: ["--protocol", "anthropic", "-m", "claude-test"],
            keyVariable: "ANTHROPIC_API_KEY", describedAt: "/v1/models/claude-test",
            description:
                #"{"id":"claude-test","type":"model","display_name":"Claude Test","max_input_tokens":\#(window),"#
                + #""max_tokens":8192}"#,
            handler: { LoopbackServer.anthropic($0) },
            system: { $0["system"] as? String },
            texts: { (($0["messages"] as? [[String: Any]]) ?? []).compactMap { $0["content"] as? String } },
            keyHeader: "x-api-key", keyValue: { $0 }),
        Case(
            name: "gemini", arguments: ["--protocol", "gemini", "-m", "gemini-test"], keyVariable: "GOOGLE_API_KEY",
            describedAt: "/v1/models/gemini-test",
            description:
                #"{"name":"models/gemini-test","inputTokenLimit":\#(window),"outputTokenLimit":8192}"#,
            handler: { LoopbackServer.gemini($0) },
            system: {
                (($0["systemInstruction"] as? [String: Any])?["parts"] as? [[String: Any]])?.first?["text"] as? String
            },
            texts: {
                (($0["contents"] as? [[String: Any]]) ?? []).compactMap {
                    (($0["parts"] as? [[String: Any]])?.first)?["text"] as? String
                }
            },
            keyHeader: "x-goog-api-key", keyValue: { $0 }),
    ]

    /// An answer of about 600 tokens by keep's estimate.
    static let answer = String(repeating: "word ", count: 480)

    @Test(
        "a budget read from the model list trims the oldest turns with the dim line, the system prompt always sent",
        arguments: cases)
    func budgetFromTheList(_ wire: Case) async throws {
        let server = try LoopbackServer(
            LoopbackServer.describing([wire.describedAt: wire.description], wire.handler([Self.answer])))
        var sandbox = try Sandbox()
        sandbox.extra[wire.keyVariable] = "sk-window-e2e"
        let added = try await sandbox.run(["servers", "add", "lab", server.baseURL] + wire.arguments)
        #expect(added.status == .exited(0), "\(added)")
        #expect(try await sandbox.run("servers", "use", "lab").status == .exited(0))
        #expect(try await sandbox.run("settings", "set", "system", "stay brief").status == .exited(0))

        // Two short turns fit any model: nothing but the questions is asked.
        let id = try await sandbox.ask("first")
        _ = try await sandbox.ask("second", chat: id)
        #expect(server.requests.allSatisfy { $0.method == "POST" }, "a short chat never asks for the model list")
        // Past what fits any model, the window is asked for; it still holds the chat.
        let third = try await sandbox.run("ask", "--chat", id, "third")
        #expect(third.status == .exited(0), "\(third)")
        #expect(!third.stderr.contains("earlier turn"), "\(third)")
        // Past the window, the oldest turn is left out of the request, with one dim line.
        let fourth = try await sandbox.run("ask", "--chat", id, "fourth")
        #expect(fourth.status == .exited(0), "\(fourth)")
        #expect(fourth.stderr.contains("1 earlier turn left out"), "\(fourth)")

        let gets = server.requests.filter { $0.method == "GET" }
        let get = try #require(gets.first)
        #expect(get.path == wire.describedAt)
        #expect(get.header(wire.keyHeader) == wire.keyValue("sk-window-e2e"), "the key in its protocol's header")
        #expect(!get.path.contains("sk-window-e2e"), "never in the URL")
        let asked = try #require(server.requests.last { $0.method == "POST" }?.json)
        #expect(wire.system(asked) == "stay brief", "the system prompt is always sent")
        let texts = wire.texts(asked)
        #expect(!texts.contains("first") && texts.contains("second") && texts.last == "fourth", "\(texts)")
        #expect(try await sandbox.messages(id).count == 8, "the chat keeps every turn")
    }

    @Test("an explicit --context wins over the model list, which is then never asked")
    func settingWins() async throws {
        let wire = Self.cases[0]
        let server = try LoopbackServer(
            LoopbackServer.describing([wire.describedAt: wire.description], wire.handler([Self.answer])))
        let sandbox = try Sandbox()
        let added = try await sandbox.run(
            ["servers", "add", "lab", server.baseURL, "--context", "100000"] + wire.arguments)
        #expect(added.status == .exited(0), "\(added)")
        #expect(try await sandbox.run("servers", "use", "lab").status == .exited(0))
        var id = try await sandbox.ask("first")
        for question in ["second", "third", "fourth"] { id = try await sandbox.ask(question, chat: id) }
        #expect(server.requests.allSatisfy { $0.method == "POST" }, "the setting is the budget: no list asked")
        let texts = wire.texts(try #require(server.requests.last?.json))
        #expect(texts.first == "first", "100,000 tokens hold the whole chat")
        let listed = try await sandbox.run("servers", "--json")
        #expect(listed.stdout.contains(#""source" : "setting""#), "\(listed)")
        #expect(listed.stdout.contains(#""tokens" : 100000"#), "\(listed)")
    }

    @Test("a server that gives no window, or does not answer for it, means no budget and never an error")
    func noWindowNoBudget() async throws {
        // The model list names the model without a window; a second server has no list at all.
        for described in [[Self.cases[0].describedAt: #"{"data":[{"id":"test-model","object":"model"}]}"#], [:]] {
            let server = try LoopbackServer(
                LoopbackServer.describing(described, LoopbackServer.streaming([Self.answer])))
            let sandbox = try Sandbox()
            try await sandbox.useRemote(server)
            var id = try await sandbox.ask("first")
            for question in ["second", "third", "fourth"] { id = try await sandbox.ask(question, chat: id) }
            #expect(server.requests.contains { $0.method == "GET" }, "the list was asked")
            let texts = Self.cases[0].texts(try #require(server.requests.last?.json))
            #expect(texts.first == "first" && texts.count == 7, "no budget: the whole chat is sent")
            let listed = try await sandbox.run("servers")
            #expect(listed.stdout.contains("context none"), "\(listed)")
        }
    }
}

extension ContextBudgetEndToEndTests {
    @Test("keep engines reads an Anthropic server's model list with its key in x-api-key and the API version")
    func enginesSendsTheProtocolsKeyHeader() async throws {
        let server = try LoopbackServer(
            LoopbackServer.describing(
                ["/v1/models": #"{"data":[{"id":"claude-test","type":"model"}],"has_more":false}"#],
                LoopbackServer.anthropic(["ok"])))
        var sandbox = try Sandbox()
        sandbox.extra["ANTHROPIC_API_KEY"] = "sk-ant-engines"
        let added = try await sandbox.run(
            "servers", "add", "claude", server.baseURL, "--protocol", "anthropic", "-m", "claude-test")
        #expect(added.status == .exited(0), "\(added)")
        #expect(try await sandbox.run("servers", "use", "claude").status == .exited(0))
        let engines = try await sandbox.run("engines")
        #expect(engines.status == .exited(0), "\(engines)")
        #expect(engines.stdout.contains("claude-test"), "\(engines)")
        let get = try #require(server.requests.first)
        #expect(get.method == "GET" && get.path == "/v1/models")
        #expect(get.header("x-api-key") == "sk-ant-engines" && get.header("anthropic-version") == "2023-06-01")
        #expect(get.header("Authorization") == nil, "never in OpenAI's header")
    }
}
