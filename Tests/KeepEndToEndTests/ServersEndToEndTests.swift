import Foundation
import Testing

/// Servers, protocols, aliases, roles, files and images through `keep`, against loopback
/// servers that speak OpenAI's, Anthropic's and Gemini's wire formats; the servers record
/// each request's headers and body.
@Suite("Servers, protocols, roles and files, end to end")
struct ServersEndToEndTests {
    private func added(_ sandbox: Sandbox, _ arguments: String...) async throws {
        let added = try await sandbox.run(["servers", "add"] + arguments)
        guard added.status == .exited(0) else { throw SandboxFailure("servers add failed:\n\(added)") }
    }

    @Test("the old server settings become the server default, the settings kept, and changing one moves it")
    func carriedOver() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let listed = try await sandbox.run("servers", "--json")
        #expect(listed.status == .exited(0), "\(listed)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let servers = try #require(report["servers"] as? [[String: Any]])
        #expect(servers.count == 1)
        #expect(servers.first?["name"] as? String == "default")
        #expect(servers.first?["url"] as? String == server.baseURL)
        #expect(servers.first?["model"] as? String == "test-model")
        // The old setting, changed afterwards, still moves the server default (a script that
        // sets it keeps working), and says so.
        let set = try await sandbox.run("settings", "set", "model", "other")
        #expect(set.stderr.contains("the server default follows"), "\(set)")
        let again = try await sandbox.run("servers", "--json")
        #expect(again.stdout.contains("\"other\""))
        #expect(!again.stdout.contains("\"test-model\""))
        let settings = try await sandbox.run("settings", "get", "baseUrl")
        #expect(settings.stdout.contains(server.baseURL), "the old setting is still there")
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(server.requests.first?.path == "/v1/chat/completions")
        let chat = try await sandbox.chat(try #require(asked.chatId))
        let answer = try #require((chat["messages"] as? [[String: Any]])?.last)
        #expect(answer["server"] as? String == server.baseURL)
    }

    @Test("an Anthropic server gets the key in x-api-key, the version, the system prompt, and streams its answer")
    func anthropic() async throws {
        let server = try LoopbackServer(LoopbackServer.anthropic(["Hel", "lo ", "wörld"], usage: (11, 7)))
        var sandbox = try Sandbox()
        sandbox.extra["ANTHROPIC_API_KEY"] = "sk-ant-test"
        try await added(sandbox, "claude", server.baseURL, "--protocol", "anthropic", "-m", "claude-test")
        let asked = try await sandbox.run("ask", "-s", "claude", "--system", "be brief", "hi")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "Hello wörld\n")
        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/messages")
        #expect(request.header("x-api-key") == "sk-ant-test")
        #expect(request.header("anthropic-version") == "2023-06-01")
        #expect(request.header("Authorization") == nil)
        let body = try #require(request.json)
        #expect(body["system"] as? String == "be brief")
        #expect(body["model"] as? String == "claude-test")
        #expect(body["max_tokens"] as? Int == 8192)
        #expect(body["messages"] as? [[String: String]] == [["role": "user", "content": "hi"]])
        let chat = try await sandbox.chat(try #require(asked.chatId))
        let answer = try #require((chat["messages"] as? [[String: Any]])?.last)
        #expect((answer["usage"] as? [String: Int]) == ["prompt": 11, "completion": 7, "total": 18])
    }

    @Test("an error event in an Anthropic stream is one line, and the question stays as the draft")
    func anthropicError() async throws {
        let server = try LoopbackServer(LoopbackServer.anthropicFailing(after: ["par"], message: "Overloaded"))
        let sandbox = try Sandbox()
        try await added(sandbox, "claude", server.baseURL, "--protocol", "anthropic")
        let asked = try await sandbox.run("ask", "-s", "claude", "hi")
        #expect(asked.status == .exited(1))
        #expect(asked.stderr.contains("reported an error: Overloaded"), "\(asked)")
    }

    @Test("a Gemini server gets the key in x-goog-api-key, never in the URL, and streams its answer")
    func gemini() async throws {
        let server = try LoopbackServer(LoopbackServer.gemini(["Bon", "jour"], usage: (5, 3)))
        var sandbox = try Sandbox()
        sandbox.extra["GEMINI_API_KEY"] = "AIza-test-key"
        try await added(sandbox, "gem", server.baseURL, "--protocol", "gemini", "-m", "gemini-test")
        let first = try await sandbox.run("ask", "-s", "gem", "--system", "in French", "hello")
        #expect(first.status == .exited(0), "\(first)")
        #expect(first.stdout == "Bonjour\n")
        let id = try #require(first.chatId)
        let second = try await sandbox.run("ask", "--chat", id, "-s", "gem", "again")
        #expect(second.status == .exited(0), "\(second)")
        let request = try #require(server.requests.last)
        #expect(request.path == "/v1/models/gemini-test:streamGenerateContent?alt=sse")
        #expect(request.header("x-goog-api-key") == "AIza-test-key")
        #expect(!request.path.contains("AIza"), "the key is never in the URL")
        let body = try #require(request.json)
        let contents = try #require(body["contents"] as? [[String: Any]])
        #expect(contents.map { $0["role"] as? String } == ["user", "model", "user"])
        let system = body["systemInstruction"] as? [String: [[String: String]]]
        #expect(system?["parts"] == [["text": "in French"]])
        let chat = try await sandbox.chat(id)
        let answer = try #require((chat["messages"] as? [[String: Any]])?.last)
        #expect((answer["usage"] as? [String: Int]) == ["prompt": 5, "completion": 3, "total": 8])
    }

    @Test("a Gemini error body is one line with its own message")
    func geminiError() async throws {
        let server = try LoopbackServer(
            LoopbackServer.answering(
                status: 400, body: #"{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}"#)
        )
        let sandbox = try Sandbox()
        try await added(sandbox, "gem", server.baseURL, "--protocol", "gemini")
        let asked = try await sandbox.run("ask", "-s", "gem", "hi")
        #expect(asked.status == .exited(1))
        #expect(asked.stderr.contains("HTTP 400: API key not valid"), "\(asked)")
    }

    @Test("-m SERVER/MODEL and an alias ask that model at that server")
    func serverSlashModel() async throws {
        let local = try LoopbackServer(LoopbackServer.streaming(["from local"]))
        let claude = try LoopbackServer(LoopbackServer.anthropic(["from claude"]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(local)
        try await added(sandbox, "claude", claude.baseURL, "--protocol", "anthropic")
        let slash = try await sandbox.run("ask", "-m", "claude/claude-x", "hi")
        #expect(slash.stdout == "from claude\n", "\(slash)")
        #expect(claude.requests.last?.json?["model"] as? String == "claude-x")
        #expect(try await sandbox.run("aliases", "set", "fast", "default/tiny").status == .exited(0))
        let alias = try await sandbox.run("ask", "-m", "fast", "hi")
        #expect(alias.stdout == "from local\n", "\(alias)")
        #expect(local.requests.last?.json?["model"] as? String == "tiny")
        // A model whose own name holds a slash, its first part no server: asked whole.
        _ = try await sandbox.run("ask", "-m", "meta-llama/Llama-3", "hi")
        #expect(local.requests.last?.json?["model"] as? String == "meta-llama/Llama-3")
    }

    @Test("a role sends its system prompt, model and temperature, and an unknown role names the ones there are")
    func roles() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let add = try await sandbox.run(
            "roles", "add", "coder", "--system", "code only", "-m", "coder-model", "--temperature", "0.2")
        #expect(add.status == .exited(0), "\(add)")
        let asked = try await sandbox.run("ask", "-r", "coder", "write it")
        #expect(asked.status == .exited(0), "\(asked)")
        let body = try #require(server.requests.last?.json)
        #expect(body["model"] as? String == "coder-model")
        #expect(body["temperature"] as? Double == 0.2)
        #expect((body["messages"] as? [[String: String]])?.first == ["role": "system", "content": "code only"])
        let unknown = try await sandbox.run("ask", "-r", "poet", "hi")
        #expect(unknown.status == .exited(1))
        #expect(unknown.stderr.contains("there is no role \"poet\"; roles: coder"), "\(unknown)")
    }

    @Test("-f joins text files with their names; a directory or a binary file is refused before anything is sent")
    func files() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let notes = sandbox.directory.appending("notes.txt")
        try "line one\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let joined = try await sandbox.run("ask", "-f", notes, "sum it up")
        #expect(joined.status == .exited(0), "\(joined)")
        let content = (server.requests.last?.json?["messages"] as? [[String: String]])?.last?["content"]
        #expect(content == "sum it up\n\n<file name=\"\(notes)\">\nline one\n</file>")
        let sent = server.requests.count
        let binary = sandbox.directory.appending("blob.bin")
        try Data([0x00, 0x01, 0xFF]).write(to: URL(fileURLWithPath: binary))
        for path in [sandbox.directory.path, binary] {
            let refused = try await sandbox.run("ask", "-f", path, "hi")
            #expect(refused.status == .exited(1))
            #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused)")
        }
        #expect(server.requests.count == sent, "nothing was sent")
    }

    @Test("-a sends a PNG as each protocol's image part; a file that is not an image is refused")
    func images() async throws {
        let openAI = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let claude = try LoopbackServer(LoopbackServer.anthropic(["ok"]))
        let gem = try LoopbackServer(LoopbackServer.gemini(["ok"]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(openAI)
        try await added(sandbox, "claude", claude.baseURL, "--protocol", "anthropic")
        try await added(sandbox, "gem", gem.baseURL, "--protocol", "gemini")
        let png = sandbox.directory.appending("dot.png")
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        try Data(bytes).write(to: URL(fileURLWithPath: png))
        let base64 = Data(bytes).base64EncodedString()
        for server in ["default", "claude", "gem"] {
            let asked = try await sandbox.run("ask", "-s", server, "-a", png, "what is it")
            #expect(asked.status == .exited(0), "\(asked)")
        }
        let openAIBody = String(decoding: try #require(openAI.requests.last?.body), as: UTF8.self)
        #expect(openAIBody.contains("\"image_url\":{\"url\":\"data:image/png;base64,\(base64)\"}"))
        let claudeBody = String(decoding: try #require(claude.requests.last?.body), as: UTF8.self)
        #expect(claudeBody.contains("\"data\":\"\(base64)\",\"media_type\":\"image/png\",\"type\":\"base64\""))
        let gemBody = String(decoding: try #require(gem.requests.last?.body), as: UTF8.self)
        #expect(gemBody.contains("\"inlineData\":{\"data\":\"\(base64)\",\"mimeType\":\"image/png\"}"))
        let text = sandbox.directory.appending("fake.png")
        try "not an image".write(toFile: text, atomically: true, encoding: .utf8)
        let refused = try await sandbox.run("ask", "-a", text, "hi")
        #expect(refused.status == .exited(1))
        #expect(refused.stderr.contains("is not a PNG, JPEG, GIF or WebP image"), "\(refused)")
    }

    @Test("a server that refuses images says so in one line")
    func imageRefused() async throws {
        let server = try LoopbackServer(
            LoopbackServer.failing(status: 400, body: #"{"error":{"message":"this model does not support images"}}"#))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let png = sandbox.directory.appending("dot.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: URL(fileURLWithPath: png))
        let asked = try await sandbox.run("ask", "-a", png, "hi")
        #expect(asked.status == .exited(1))
        #expect(asked.stderr.contains("did not take the image"), "\(asked)")
        #expect(asked.stderr.split(separator: "\n").filter { $0.hasPrefix("keep:") }.count == 1, "\(asked)")
    }

    @Test("past the server's context budget the oldest turns are left out of the request, never out of the chat")
    func contextBudget() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming([String(repeating: "a", count: 800)]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        try await added(sandbox, "default", server.baseURL, "-m", "test-model", "--context", "300")
        #expect(try await sandbox.run("settings", "set", "system", "stay brief").status == .exited(0))
        let id = try await sandbox.ask("first")
        _ = try await sandbox.ask("second", chat: id)
        let third = try await sandbox.run("ask", "--chat", id, "third")
        #expect(third.status == .exited(0), "\(third)")
        #expect(third.stderr.contains("earlier turn"), "\(third)")
        let messages = try #require(server.requests.last?.json?["messages"] as? [[String: String]])
        #expect(messages.first == ["role": "system", "content": "stay brief"], "the system prompt is always sent")
        #expect(messages.last == ["role": "user", "content": "third"])
        #expect(!messages.contains { $0["content"] == "first" })
        #expect(try await sandbox.messages(id).count == 6, "the chat keeps every turn")
    }

    @Test("keep ask -x prints only the fenced code blocks, and the whole answer is kept")
    func extract() async throws {
        let answer = "Here:\n```swift\nprint(1)\n```\nand\n~~~\nls\n~~~\n"
        let server = try LoopbackServer(LoopbackServer.streaming([answer]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let asked = try await sandbox.run("ask", "-x", "code please")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "print(1)\n\nls\n")
        #expect(try await sandbox.messages(try #require(asked.chatId)).last == answer)
    }

    @Test("keep chat -c and keep -c continue the chat answered last")
    func continueChat() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("remember me")
        for words in [["chat", "-c"], ["-c"]] {
            let chat = try await sandbox.run(words, input: "next\n")
            #expect(chat.status == .exited(0), "\(chat)")
            #expect(chat.stderr.contains(id) || chat.stdout.contains(id), "\(chat)")
        }
        #expect(try await sandbox.messages(id).count == 6)
    }
}
