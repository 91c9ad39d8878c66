import Foundation
import Testing

/// `keep ask` with the remote engine against a loopback OpenAI-compatible server.
@Suite("The remote engine, end to end")
struct RemoteEngineTests {
    /// A sandbox whose settings point the remote engine at `server`.
    private func sandbox(for server: LoopbackServer, keyring: Bool = false) async throws -> Sandbox {
        let sandbox = try Sandbox(keyring: keyring)
        for (key, value) in [("engineId", "remote"), ("baseUrl", server.baseURL), ("model", "test-model")] {
            let set = try await sandbox.run("settings", "set", key, value)
            #expect(set.status == .exited(0), "\(set)")
        }
        return sandbox
    }

    @Test("keep ask streams the server's answer and records the turn")
    func streamsTheAnswer() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["Hello", ", ", "world", "!"]))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "say", "hello")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "Hello, world!\n")

        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/chat/completions")
        let body = try #require(request.json)
        #expect(body["model"] as? String == "test-model")
        #expect(body["stream"] as? Bool == true)
        #expect(body["temperature"] as? Double == 0.7)
        let messages = try #require(body["messages"] as? [[String: String]])
        #expect(messages == [["role": "user", "content": "say hello"]])

        let id = asked.stderr.split(separator: "\n").last.map(String.init) ?? ""
        let shown = try await sandbox.run("chats", "show", id, "--json")
        #expect(shown.stdout.contains("\"text\" : \"Hello, world!\""), "\(shown)")
    }

    @Test("with no key the request carries no Authorization header at all")
    func noKeyNoHeader() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(0), "\(asked)")
        let request = try #require(server.requests.first)
        #expect(request.header("Authorization") == nil)
        #expect(request.header("Content-Type") == "application/json", "the scan sees the headers it checks")
    }
}
