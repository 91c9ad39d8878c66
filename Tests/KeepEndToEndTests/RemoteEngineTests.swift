import Foundation
import Testing

/// `keep ask` with the remote engine against a loopback OpenAI-compatible server, with no
/// keyring: no key, a key from the environment, and every way the server can fail.
@Suite("The remote engine, end to end")
struct RemoteEngineTests {
    /// A sandbox whose settings point the remote engine at `server`.
    private func sandbox(for server: LoopbackServer) async throws -> Sandbox {
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        return sandbox
    }

    @Test("keep ask sends the conversation and prints the streamed answer")
    func streamsTheAnswer() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["Hello", ", ", "wörld", "!\n"]))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "say", "hello")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "Hello, wörld!\n")

        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/chat/completions")
        let body = try #require(request.json)
        #expect(body["model"] as? String == "test-model")
        #expect(body["stream"] as? Bool == true)
        #expect(body["temperature"] as? Double == 0.7)
        #expect(body["messages"] as? [[String: String]] == [["role": "user", "content": "say hello"]])

        #expect(try await sandbox.messages(try #require(asked.chatId)) == ["say hello", "Hello, wörld!\n"])
    }

    @Test("the next question carries the whole conversation, and the temperature setting")
    func sendsTheConversation() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["answer"]))
        let sandbox = try await sandbox(for: server)
        #expect(try await sandbox.run("settings", "set", "temperature", "0.2").status == .exited(0))
        let id = try await sandbox.ask("first")
        _ = try await sandbox.ask("second", chat: id)
        let body = try #require(server.requests.last?.json)
        #expect(body["temperature"] as? Double == 0.2)
        #expect(
            body["messages"] as? [[String: String]] == [
                ["role": "user", "content": "first"], ["role": "assistant", "content": "answer"],
                ["role": "user", "content": "second"],
            ])
    }

    @Test("with no key the request carries no Authorization header at all")
    func noKeyNoHeader() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(0), "\(asked)")
        let request = try #require(server.requests.first)
        #expect(request.header("Content-Type") == "application/json", "the check sees the headers that were sent")
        #expect(request.header("Authorization") == nil)
    }

    @Test("without a keyring, the key comes from OPENAI_API_KEY, with the honest warning")
    func keyFromTheEnvironment() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        var sandbox = try await sandbox(for: server)
        sandbox.extra["OPENAI_API_KEY"] = "sk-from-the-environment"
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(server.requests.first?.header("Authorization") == "Bearer sk-from-the-environment")
        #expect(asked.stderr.contains("keep: warning: no keyring answers"))
        #expect(asked.stderr.contains("OPENAI_API_KEY"))
        #expect(!asked.stderr.contains("sk-from-the-environment") && !asked.stdout.contains("sk-from-the-environment"))
    }

    @Test(
        "an HTTP error is one clear line, and the question is kept as the draft",
        arguments: [
            (
                401, #"{"error":{"message":"Missing bearer token"}}"#,
                "wants an API key (HTTP 401: Missing bearer token); " + noKeyringToRead
            ),
            (
                403, #"{"error":"forbidden"}"#,
                "wants an API key (HTTP 403: forbidden); " + noKeyringToRead
            ),
            (500, #"{"error":{"message":"model not\nloaded"}}"#, "answered HTTP 500: model not loaded"),
            (404, "not json", "answered HTTP 404 Not Found"),
        ])
    func httpErrors(status: Int, body: String, message: String) async throws {
        let expected = "\(message); the question is kept as chat "
        let server = try LoopbackServer(LoopbackServer.failing(status: status, body: body))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "what went wrong?")
        #expect(asked.status == .exited(1))
        #expect(asked.stdout.isEmpty)
        let id = try #require(asked.chatId)
        #expect(asked.stderr == "\(id)\nkeep: the server at \(server.baseURL) \(expected)\(id)'s draft\n", "\(asked)")
        #expect(try await sandbox.chat(id)["draft"] as? String == "what went wrong?")
    }

    @Test("a server that is not running is one clear line, and the question is kept")
    func connectionRefused() async throws {
        let gone = try LoopbackServer(LoopbackServer.streaming(["never"]))
        let sandbox = try await sandbox(for: gone)
        gone.stop()
        let asked = try await sandbox.run("ask", "anyone there?")
        #expect(asked.status == .exited(1))
        let id = try #require(asked.chatId)
        #expect(
            asked.stderr
                == "\(id)\nkeep: cannot connect to \(gone.baseURL) (is the server running?); the question is kept as "
                + "chat \(id)'s draft\n", "\(asked)")
        #expect(try await sandbox.chat(id)["draft"] as? String == "anyone there?")
    }

    @Test("a stream that ends before [DONE] is not recorded as an answer")
    func cutOffStream() async throws {
        let server = try LoopbackServer(
            LoopbackServer.openAI { _, responder in
                responder.beginEvents()
                responder.content("half an ans")
            })
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "tell me everything")
        #expect(asked.status == .exited(1))
        #expect(asked.stdout == "half an ans\n", "what arrived was shown as it came")
        #expect(asked.stderr.contains("ended the stream before the answer was complete"), "\(asked)")
        let id = try #require(asked.chatId)
        #expect(try await sandbox.messages(id).isEmpty)
        #expect(try await sandbox.chat(id)["draft"] as? String == "tell me everything")
    }

    @Test("a server that answers one JSON completion instead of a stream is understood")
    func wholeJSONAnswer() async throws {
        let server = try LoopbackServer(
            LoopbackServer.openAI { _, responder in
                responder.send(
                    status: 200,
                    body:
                        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"all at once\"},\"finish_reason\":\"stop\"}]}"
                )
            })
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "all at once\n")
    }
}

/// What a 401 or 403 says when keep ran without a keyring: the key could not be read,
/// not that none is stored (`keep key set` could not store one here either).
private let noKeyringToRead =
    "the key in openai/\"default\" could not be read: connect failed: there is no D-Bus session bus "
    + "(DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus); log in to a desktop session, or "
    + "run keep under `dbus-run-session`"
