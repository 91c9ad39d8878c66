import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// What people expect of a terminal chat client, checked as the loopback server received
/// it: piped input, a model per question, system prompts, max tokens, usage.
@Suite("What a terminal chat client does")
struct TerminalClientTests {
    /// A sandbox whose settings point the remote engine at `server`.
    private func sandbox(for server: LoopbackServer) async throws -> Sandbox {
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        return sandbox
    }

    /// The messages of the last request `server` received, as role and content.
    private func sent(_ server: LoopbackServer) throws -> [[String: String]] {
        try #require(server.requests.last?.json?["messages"] as? [[String: String]])
    }

    // MARK: - Piped input

    @Test("text piped into keep ask TEXT is sent after the question between <stdin> lines, and kept so")
    func pipedInputJoins() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["a summary"]))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run(["ask", "summarize", "this"], input: "line one\nline two\n\n")
        #expect(asked.status == .exited(0), "\(asked)")
        let joined = "summarize this\n\n<stdin>\nline one\nline two\n</stdin>"
        #expect(try sent(server) == [["role": "user", "content": joined]])
        let id = try #require(asked.chatId)
        #expect(try await sandbox.messages(id) == [joined, "a summary"])
        #expect(try await sandbox.chat(id)["title"] as? String == "summarize this", "the title is the question's")
    }

    @Test("with nothing piped the question goes alone; with no TEXT the piped text is the question")
    func nothingPipedOrOnlyPiped() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        #expect(try await sandbox.run(["ask", "just this"], input: "").status == .exited(0))
        #expect(try sent(server) == [["role": "user", "content": "just this"]])
        #expect(try await sandbox.run(["ask"], input: "the question itself\n").status == .exited(0))
        #expect(try sent(server) == [["role": "user", "content": "the question itself"]])
    }

    @Test("piped input over 1 MiB is refused with one clear line and nothing is asked; 1 MiB is taken")
    func pipedInputLimit() async throws {
        let sandbox = try Sandbox()
        let limit = 1 << 20
        let over = try await sandbox.run(["ask", "count the letters"], input: String(repeating: "a", count: limit + 1))
        #expect(over.status == .exited(1), "\(over)")
        #expect(over.stderr.contains("keep: standard input holds more than 1 MiB"), "\(over.stderr)")
        #expect(try await sandbox.run("chats", "--json").stdout.contains("\"chats\" : []"), "nothing was kept")

        let within = try await sandbox.run(["ask", "count the letters"], input: String(repeating: "a", count: limit))
        #expect(within.status == .exited(0), "the limit itself is taken")
    }

    @Test("with standard input closed, keep ask TEXT asks TEXT alone, and keep ask alone has nothing to ask")
    func closedStandardInput() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        // `<&-` closes standard input for keep only; /bin/sh is the independent client that does it.
        let asked = try await ToolRun.run(
            "/bin/sh", ["-c", "exec \"$0\" ask closed <&-", KeepProcess.binary], environment: sandbox.environment)
        #expect(asked.status == 0, "\(asked.errors)")
        #expect(try sent(server) == [["role": "user", "content": "closed"]])
        let alone = try await ToolRun.run(
            "/bin/sh", ["-c", "exec \"$0\" ask <&-", KeepProcess.binary], environment: sandbox.environment)
        #expect(alone.status == 2)
        #expect(alone.errors.hasPrefix("keep: nothing to ask"), "\(alone.errors)")
    }

    // MARK: - A model per question, max tokens, temperature

    @Test("-m, -t and --temperature reach the server for one question; each answer records its model and server")
    func modelPerQuestion() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "-m", "other-model", "-t", "64", "--temperature", "1.5", "q")
        #expect(asked.status == .exited(0), "\(asked)")
        let body = try #require(server.requests.last?.json)
        #expect(body["model"] as? String == "other-model")
        #expect(body["max_tokens"] as? Int == 64)
        #expect(body["temperature"] as? Double == 1.5)
        #expect((body["stream_options"] as? [String: Bool]) == ["include_usage": true])

        let id = try #require(asked.chatId)
        _ = try await sandbox.ask("again", chat: id)
        let next = try #require(server.requests.last?.json)
        #expect(next["model"] as? String == "test-model", "-m is for one question; the setting is back")
        #expect(next["max_tokens"] == nil, "no cap is sent unless one is set")

        let messages = try #require(try await sandbox.chat(id)["messages"] as? [[String: Any]])
        #expect(messages.map { $0["model"] as? String } == [nil, "other-model", nil, "test-model"])
        #expect(messages[1]["server"] as? String == server.baseURL)
    }

    @Test("-m with the echo engine is answered all the same, with a warning that the model is ignored")
    func modelWithEcho() async throws {
        let sandbox = try Sandbox()
        let asked = try await sandbox.run("ask", "-m", "gpt-4o", "hi")
        #expect(asked.status == .exited(0) && asked.stdout == "echo: hi\n", "\(asked)")
        #expect(asked.stderr.contains("keep: warning: the echo engine has no models, so --model is ignored"))
        let plain = try await sandbox.run("ask", "hi")
        #expect(!plain.stderr.contains("warning"), "no -m, no warning: \(plain)")
    }

    @Test("the maxTokens setting caps every answer, -t overrides it, and a bad -t is a usage error")
    func maxTokensSetting() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        #expect(try await sandbox.run("settings", "set", "maxTokens", "100").status == .exited(0))
        #expect(try await sandbox.run("settings", "set", "maxTokens", "1.5").status == .exited(1))
        _ = try await sandbox.ask("q")
        #expect(server.requests.last?.json?["max_tokens"] as? Int == 100)
        #expect(try await sandbox.run("ask", "-t", "7", "q").status == .exited(0))
        #expect(server.requests.last?.json?["max_tokens"] as? Int == 7)
        let count = server.requests.count
        for bad in ["-1", "many", "1.5"] {
            let refused = try await sandbox.run("ask", "-t", bad, "q")
            #expect(refused.status == .exited(2), "\(bad): \(refused)")
            #expect(refused.stderr.contains("--max-tokens must be a whole number"))
        }
        #expect(server.requests.count == count, "nothing was sent for a refused command line")
    }

    // MARK: - System prompts

    @Test("--system is sent first and kept as the chat's own, so the chat's next questions carry it too")
    func systemPrompt() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "--system", "answer in French", "hello")
        #expect(asked.status == .exited(0), "\(asked)")
        let system = ["role": "system", "content": "answer in French"]
        #expect(try sent(server) == [system, ["role": "user", "content": "hello"]])
        let id = try #require(asked.chatId)
        #expect(try await sandbox.chat(id)["system"] as? String == "answer in French")

        _ = try await sandbox.ask("again", chat: id)
        #expect(try sent(server).first == system, "the chat's own prompt goes with its later questions")
        #expect(try sent(server).count == 4, "the system prompt is sent, never stored as a message")
    }

    @Test("the system setting goes to chats without their own; a chat's own, even empty, wins")
    func systemSetting() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        #expect(try await sandbox.run("settings", "set", "system", "be brief").status == .exited(0))
        _ = try await sandbox.ask("q")
        #expect(try sent(server) == [["role": "system", "content": "be brief"], ["role": "user", "content": "q"]])
        #expect(try await sandbox.run("ask", "--system", "be long", "q").status == .exited(0))
        #expect(try sent(server).first == ["role": "system", "content": "be long"])
        #expect(try await sandbox.run("ask", "--system", "", "q").status == .exited(0))
        #expect(try sent(server) == [["role": "user", "content": "q"]], "an empty prompt sends none")
    }

    // MARK: - Usage

    @Test("the usage a server streams is kept on the answer, shown by chats show and ask --json, summed by keep usage")
    func usageIsKept() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["Paris."], usage: (prompt: 21, completion: 3)))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "--json", "capital of France?")
        #expect(asked.status == .exited(0), "\(asked)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(asked.stdout.utf8)) as? [String: Any])
        #expect(report["answer"] as? String == "Paris.")
        #expect(report["model"] as? String == "test-model")
        #expect(report["server"] as? String == server.baseURL)
        #expect(report["usage"] as? [String: Int] == ["prompt": 21, "completion": 3, "total": 24])
        let id = try #require(report["chat"] as? String)
        #expect(!asked.stderr.contains(id), "with --json the id is in the object only")

        let messages = try #require(try await sandbox.chat(id)["messages"] as? [[String: Any]])
        #expect(messages[1]["usage"] as? [String: Int] == ["prompt": 21, "completion": 3, "total": 24])
        let shown = try await sandbox.run("chats", "show", id)
        #expect(shown.stdout.contains("test-model at \(server.baseURL) · 21 prompt + 3 completion tokens"), "\(shown)")

        _ = try await sandbox.run("ask", "-m", "second-model", "again")
        let usage = try await sandbox.run("usage", "--json")
        let summed = try #require(try JSONSerialization.jsonObject(with: Data(usage.stdout.utf8)) as? [String: Any])
        let rows = try #require(summed["models"] as? [[String: Any]])
        #expect(rows.map { $0["model"] as? String } == ["second-model", "test-model"] || rows.count == 2)
        #expect((summed["total"] as? [String: Int])?["total"] == 48)
        #expect((summed["total"] as? [String: Int])?["answers"] == 2)
        let text = try await sandbox.run("usage", "--since", "1")
        #expect(text.stdout.contains("the last 1 day:"), "\(text)")
        #expect(text.stdout.contains("test-model"))
        #expect(try await sandbox.run("usage", "--since", "0").status == .exited(2))
    }

    @Test(
        "a server that refuses stream_options is asked again without it, and answers; another 400 is not retried",
        arguments: [(400, true), (422, true), (400, false)])
    func serverRefusesUsage(status: Int, namesTheField: Bool) async throws {
        let refusal = namesTheField ? "Unrecognized request argument supplied: stream_options" : "bad model"
        let server = try LoopbackServer(
            LoopbackServer.openAI { request, responder in
                guard request.json?["stream_options"] == nil else {
                    return responder.send(status: status, body: "{\"error\":{\"message\":\"\(refusal)\"}}")
                }
                responder.beginEvents()
                responder.content("answered")
                responder.done()
            })
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "q")
        if namesTheField {
            #expect(asked.status == .exited(0) && asked.stdout == "answered\n", "\(asked)")
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.json?["stream_options"] == nil)
            let id = try #require(asked.chatId)
            let messages = try #require(try await sandbox.chat(id)["messages"] as? [[String: Any]])
            #expect(messages[1]["usage"] == nil && messages[1]["model"] as? String == "test-model")
        } else {
            #expect(asked.status == .exited(1), "\(asked)")
            #expect(asked.stderr.contains("bad model"))
            #expect(server.requests.count == 1, "only the refusal of stream_options is retried")
        }
    }

    @Test("a server that sends no usage leaves the answer without one, counted as uncounted")
    func noUsage() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        let id = try await sandbox.ask("q")
        let messages = try #require(try await sandbox.chat(id)["messages"] as? [[String: Any]])
        #expect(messages[1]["usage"] == nil && messages[1]["model"] as? String == "test-model")
        let usage = try await sandbox.run("usage")
        #expect(usage.stdout.contains("1 answer came with no count from the server."), "\(usage)")
    }
}
