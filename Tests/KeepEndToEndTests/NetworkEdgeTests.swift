import Foundation
import Testing

/// Where keep meets a server, tried as an attacker would: redirects, what a server sends
/// back (escape sequences, the key echoed, an endless or a wrong answer), the address in
/// `baseUrl`, the proxy variables and the process itself. Each server is one the test
/// starts on 127.0.0.1; none is ever contacted elsewhere.
@Suite("The network edge, end to end")
struct NetworkEdgeTests {
    static let key = "sk-edge-test-0123456789"

    /// A sandbox (no keyring, the key from the environment) whose remote engine asks `server`.
    private func sandbox(for server: LoopbackServer, key: String? = NetworkEdgeTests.key) async throws -> Sandbox {
        var sandbox = try Sandbox()
        if let key { sandbox.extra["OPENAI_API_KEY"] = key }
        try await sandbox.useRemote(server)
        return sandbox
    }

    // MARK: - Redirects

    static let redirects = [301, 302, 303, 307, 308]

    @Test(
        "a redirect to another origin is never followed: the turn fails naming where, the question stays the draft",
        arguments: redirects)
    func crossOriginRedirect(status: Int) async throws {
        let elsewhere = try LoopbackServer(LoopbackServer.streaming(["from elsewhere"]))
        let server = try LoopbackServer(
            LoopbackServer.redirecting(status: status, to: elsewhere.baseURL + "/chat/completions"))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "a private question")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(server.requests.first?.header("Authorization") == "Bearer \(Self.key)", "the key went to baseUrl")
        #expect(elsewhere.connections == 0, "nothing, not even a connection, reached the other origin")
        #expect(asked.stdout.isEmpty)
        let id = try #require(asked.chatId)
        #expect(
            asked.stderr.contains(
                "keep: the server at \(server.baseURL) redirected the request (HTTP \(status)) to "
                    + "\(elsewhere.baseURL)/chat/completions;"), "\(asked)")
        #expect(asked.stderr.contains("keep settings set baseUrl \(elsewhere.baseURL); the question is kept"))
        #expect(try await sandbox.messages(id).isEmpty, "nothing is saved as an answer")
        #expect(try await sandbox.chat(id)["draft"] as? String == "a private question")

        // Doing what the line says reaches the other server, key and all.
        #expect(try await sandbox.run("settings", "set", "baseUrl", elsewhere.baseURL).status == .exited(0))
        let again = try await sandbox.run("ask", "--chat", id, "a private question")
        #expect(again.status == .exited(0), "\(again)")
        #expect(again.stdout == "from elsewhere\n")
        #expect(elsewhere.requests.first?.header("Authorization") == "Bearer \(Self.key)")
    }

    /// A server that moves `/v1/…` to `/v2/…` with `status`, and answers at `/v2`.
    private static func moving(status: Int) -> LoopbackServer.Handler {
        { request, responder in
            if request.path.hasPrefix("/v1/") {
                let moved = "/v2/" + request.path.dropFirst("/v1/".count)
                responder.send(status: status, headers: ["Location": moved], body: "")
            } else if request.method == "POST" {
                LoopbackServer.streaming(["moved answer"])(request, responder)
            } else {
                LoopbackServer.openAI(chat: { _, _ in }, models: ["moved-model"])(request, responder)
            }
        }
    }

    @Test(
        "a same-origin redirect that keeps the method and body (307, 308) is followed with the whole request",
        arguments: [307, 308])
    func sameOriginRedirectFollowed(status: Int) async throws {
        let server = try LoopbackServer(Self.moving(status: status))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "where did you go?")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "moved answer\n")
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[1].path == "/v2/chat/completions")
        #expect(requests[1].method == "POST")
        #expect(requests[1].body == requests[0].body && !requests[1].body.isEmpty, "the question went again")
        #expect(requests[1].header("Authorization") == "Bearer \(Self.key)")
        #expect(try await sandbox.messages(try #require(asked.chatId)) == ["where did you go?", "moved answer"])
    }

    @Test(
        "a same-origin redirect that would turn the POST into a GET (301, 302, 303) is an error, not a new request",
        arguments: [301, 302, 303])
    func methodChangingRedirectRefused(status: Int) async throws {
        let server = try LoopbackServer(Self.moving(status: status))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "still there?")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(server.requests.count == 1, "no GET followed")
        #expect(
            asked.stderr.contains(
                "answered HTTP \(status), moving the request to \(server.origin)/v2/chat/completions as a GET"),
            "\(asked)")
        #expect(try await sandbox.chat(try #require(asked.chatId))["draft"] as? String == "still there?")
    }

    @Test("the model list never follows a redirect to another origin", arguments: redirects)
    func modelListCrossOrigin(status: Int) async throws {
        let elsewhere = try LoopbackServer(LoopbackServer.openAI(chat: { _, _ in }, models: ["elsewhere-model"]))
        let server = try LoopbackServer(LoopbackServer.redirecting(status: status, to: elsewhere.baseURL + "/models"))
        let sandbox = try await sandbox(for: server)
        let listed = try await sandbox.run("engines")
        #expect(listed.status == .exited(0), "\(listed)")
        #expect(server.requests.first?.header("Authorization") == "Bearer \(Self.key)")
        #expect(elsewhere.connections == 0)
        #expect(
            listed.stdout.contains("redirected the request (HTTP \(status)) to \(elsewhere.baseURL)/models"),
            "\(listed)")
        #expect(listed.stdout.contains("point baseUrl at \(elsewhere.baseURL)"), "\(listed)")
        #expect(!listed.stdout.contains("elsewhere-model"))
    }

    @Test("the model list follows a same-origin redirect, the GET staying a GET", arguments: redirects)
    func modelListSameOrigin(status: Int) async throws {
        let server = try LoopbackServer(Self.moving(status: status))
        let sandbox = try await sandbox(for: server)
        let listed = try await sandbox.run("engines")
        #expect(listed.status == .exited(0), "\(listed)")
        #expect(listed.stdout.contains("models: moved-model"), "\(listed)")
        #expect(server.requests.map(\.path) == ["/v1/models", "/v2/models"])
        #expect(server.requests.map(\.method) == ["GET", "GET"])
    }

    // MARK: - What a server says

    /// Everything a terminal would obey: a window title, an OSC 52 clipboard write, hidden
    /// text, a one-byte CSI, a right-to-left override, a carriage return.
    static let hostile =
        "a\u{1B}]0;owned\u{07}b\u{1B}]52;c;aGVsbG8=\u{07}c\u{1B}[8mhidden\u{1B}[0md\u{9B}31me\u{202E}f\rg"
    /// What each of those control characters is, so a test can say none reached the output.
    static let controls: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}", "\r"]

    private func holdsNoControl(_ text: String) -> Bool {
        !text.unicodeScalars.contains { Self.controls.contains($0) }
    }

    @Test("escape sequences in a streamed answer never reach the terminal; the chat keeps the server's bytes")
    func hostileAnswer() async throws {
        // Split inside the sequences: a stateless neutraliser must catch them anyway.
        let pieces = ["safe ", "\u{1B}", "]0;owned", "\u{07} ", Self.hostile]
        let server = try LoopbackServer(LoopbackServer.streaming(pieces))
        let sandbox = try await sandbox(for: server, key: nil)
        // On a terminal (to a pipe an answer is the server's text exactly), shown as it came
        // (NO_COLOR, so no styles of keep's own either): inert stand-ins, never the sequences.
        var plain = sandbox
        plain.extra["NO_COLOR"] = "1"
        let asking = try plain.start(["ask", "title\u{1B}]0;question\u{07}"], terminal: true)
        #expect(await asking.exit() == .exited(0))
        // The terminal turns each newline into CR LF; any other CR would be the server's.
        let screen = asking.output.text.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(screen.contains("safe ^[]0;owned^G a^[]0;owned^Gb"), "shown as inert stand-ins: \(screen)")
        #expect(holdsNoControl(screen), "\(screen.debugDescription)")
        let id = try #require(try await sandbox.run("store", "ls", "chats").chatIdLine)
        #expect(try await sandbox.messages(id) == ["title\u{1B}]0;question\u{07}", pieces.joined()])

        let shown = try await sandbox.run("chats", "show", id)
        #expect(shown.stdout.contains("^[]0;owned^G"), "\(shown)")
        #expect(holdsNoControl(shown.stdout), "\(shown.stdout.debugDescription)")
        let listed = try await sandbox.run("chats")
        #expect(listed.stdout.contains("title^[]0;question^G"), "\(listed)")
        #expect(holdsNoControl(listed.stdout), "\(listed.stdout.debugDescription)")
        let found = try await sandbox.run("chats", "search", "owned")
        #expect(found.stdout.contains("^[]0;owned"), "\(found)")
        #expect(holdsNoControl(found.stdout))
        // --json stays exact JSON: the bytes come back whole.
        let json = try await sandbox.run("chats", "show", id, "--json")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let messages = try #require(parsed?["messages"] as? [[String: Any]])
        #expect(messages.last?["text"] as? String == pieces.joined())
    }

    @Test("escape sequences in a server's error message and in model ids never reach the terminal")
    func hostileErrorAndModels() async throws {
        // In JSON, control characters travel escaped; the server's message decodes to them.
        let escaped = "bad\\u001b]0;owned\\u0007news\\u009b2J"
        let server = try LoopbackServer(
            LoopbackServer.openAI(
                chat: { _, responder in responder.send(status: 500, body: "{\"error\":{\"message\":\"\(escaped)\"}}") },
                models: ["ok-model", "evil\\u001b]52;c;aGk=\\u0007model"]))
        let sandbox = try await sandbox(for: server, key: nil)
        let asked = try await sandbox.run("ask", "hello")
        #expect(asked.status == .exited(1))
        #expect(asked.stderr.contains("answered HTTP 500: bad^[]0;owned^Gnews<U+009B>2J"), "\(asked)")
        #expect(holdsNoControl(asked.stderr), "\(asked.stderr.debugDescription)")

        let listed = try await sandbox.run("engines")
        #expect(listed.stdout.contains("models: ok-model, evil^[]52;c;aGk=^Gmodel"), "\(listed)")
        #expect(holdsNoControl(listed.stdout), "\(listed.stdout.debugDescription)")
        let json = try await sandbox.run("engines", "--json")
        #expect(json.stdout.contains("evil\\u001b]52;c;aGk=\\u0007model"), "exact JSON, escaped: \(json.stdout)")
    }

    @Test("a server that echoes the key gets it hidden in everything keep shows or keeps")
    func echoedKeyHidden() async throws {
        let bearer = "Bearer \(Self.key)"
        let server = try LoopbackServer { request, responder in
            if request.method == "GET" {
                let list = "{\"object\":\"list\",\"data\":[{\"id\":\"m-\(Self.key)\"}]}"
                responder.send(
                    status: 200, headers: ["Content-Type": "application/json", "Server": "echo \(bearer)"], body: list)
            } else {
                responder.send(status: 400, body: "{\"error\":{\"message\":\"unknown key \(bearer)\"}}")
            }
        }
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "hello")
        #expect(server.requests.first?.header("Authorization") == bearer, "the server did get the key to echo")
        #expect(asked.status == .exited(1))
        #expect(asked.stderr.contains("unknown key Bearer [your key]"), "\(asked)")
        for run in [
            try await sandbox.run("engines"), try await sandbox.run("engines"),
            try await sandbox.run("engines", "--json"),
        ] {
            #expect(run.stdout.contains("[your key]"), "\(run)")
            #expect(!run.stdout.contains(Self.key) && !run.stderr.contains(Self.key), "\(run)")
        }
        #expect(!asked.stderr.contains(Self.key) && !asked.stdout.contains(Self.key))
    }

    @Test(
        "a key the server echoes into a streamed answer, even split across chunks, is hidden before it is shown or kept"
    )
    func echoedKeyInAnswer() async throws {
        let key = Self.key
        let cut = key.index(key.startIndex, offsetBy: 7)
        let pieces = ["your key is ", String(key[..<cut]), String(key[cut...]), " and again \(key)", " sk-edge-t"]
        let server = try LoopbackServer(LoopbackServer.streaming(pieces))
        let sandbox = try await sandbox(for: server)
        let asked = try await sandbox.run("ask", "what is my key?")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(server.requests.first?.header("Authorization") == "Bearer \(key)", "the server had the key to echo")
        #expect(asked.stdout == "your key is [your key] and again [your key] sk-edge-t\n", "\(asked)")
        let id = try #require(asked.chatId)
        #expect(try await sandbox.messages(id).last == "your key is [your key] and again [your key] sk-edge-t")
        let stored = try await sandbox.run("store", "get", "chats", id)
        #expect(stored.stdout.contains("[your key]"), "the scan below sees the stored answer")
        #expect(!stored.stdout.contains(key))
    }

    @Test("ids and values from disk never control the terminal; a value piped out of keep store get stays exact")
    func hostileStoreText() async throws {
        let sandbox = try Sandbox()
        let id = "evil\u{1B}]0;owned\u{07}"
        #expect(
            try await sandbox.run(["store", "put", "chats", id], input: "not a chat \u{1B}[8m").status == .exited(0))
        let listed = try await sandbox.run("chats")
        #expect(listed.stdout.contains("evil^[]0;owned^G  UNREADABLE"), "\(listed)")
        #expect(holdsNoControl(listed.stdout))
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("chat \"evil"), "\(doctor)")
        #expect(holdsNoControl(doctor.stdout))
        let ids = try await sandbox.run("store", "ls", "chats")
        #expect(ids.stdout == "evil^[]0;owned^G\n", "\(ids)")
        let piped = try await sandbox.run("store", "get", "chats", id)
        #expect(piped.stdout == "not a chat \u{1B}[8m", "a pipe gets the bytes as stored")
        let onTerminal = try sandbox.start(["store", "get", "chats", id], terminal: true)
        #expect(await onTerminal.exit() == .exited(0))
        let shown = await onTerminal.output.waitForEnd()
        #expect(shown.contains("not a chat ^[[8m"), "\(shown.debugDescription)")
        #expect(holdsNoControl(shown.replacingOccurrences(of: "\r\n", with: "\n")), "\(shown.debugDescription)")
    }

    // MARK: - Bounds

    @Test("an endless model list is not read past its limit, and the reading says so")
    func endlessModelList() async throws {
        let server = try LoopbackServer { request, responder in
            guard request.method == "GET" else { return responder.send(status: 404, body: "{}") }
            responder.raw(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                    + "Connection: close\r\n\r\n")
            let piece = "{\"id\":\"" + String(repeating: "m", count: 4000) + "\"},"
            let chunk = String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n"
            var sent = 0
            while sent < 1 << 30, responder.raw(chunk) { sent += chunk.utf8.count }
        }
        let sandbox = try await sandbox(for: server, key: nil)
        let listed = try await sandbox.run("engines")
        #expect(listed.status == .exited(0), "\(listed)")
        #expect(listed.stdout.contains("no answer (its answer passed 8 MiB; not read)"), "\(listed)")
    }

    @Test("an endless answer ends the turn at the size limit with one line, and nothing is saved")
    func endlessAnswer() async throws {
        let server = try LoopbackServer(LoopbackServer.endless(String(repeating: "x", count: 1000)))
        let sandbox = try await sandbox(for: server, key: nil)
        #expect(try await sandbox.run("settings", "set", "answerLimitMiB", "1").status == .exited(0))
        let asked = try await sandbox.run("ask", "go on forever")
        #expect(asked.status == .exited(1), "\(asked.stderr)")
        #expect(
            asked.stderr.contains(
                "keep: the answer from \(server.baseURL) passed 1 MiB (the answerLimitMiB setting); stopped reading it"),
            "\(asked.stderr)")
        #expect(asked.stdout.utf8.count < 1 << 20, "no more than the limit was read")
        let id = try #require(asked.chatId)
        #expect(try await sandbox.messages(id).isEmpty)
        #expect(try await sandbox.chat(id)["draft"] as? String == "go on forever")
    }

    @Test("a server that trickles a comment line every moment is ended at answerTimeoutSeconds, the question kept")
    func tricklingAnswer() async throws {
        let server = try LoopbackServer(
            LoopbackServer.openAI { _, responder in
                responder.beginEvents()
                responder.content("so far ")
                // A keep-alive comment, over and over: never idle, never an answer.
                for _ in 0..<6000 where responder.chunkSent(": still thinking\n") { usleep(50_000) }
            })
        let sandbox = try await sandbox(for: server, key: nil)
        #expect(try await sandbox.run("settings", "set", "answerTimeoutSeconds", "2").status == .exited(0))
        let asked = try await sandbox.run("ask", "take your time")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(
            asked.stderr.contains(
                "keep: the answer from \(server.baseURL) took longer than 2 seconds (the answerTimeoutSeconds "
                    + "setting); stopped waiting; the question is kept"), "\(asked)")
        let id = try #require(asked.chatId)
        #expect(try await sandbox.messages(id).isEmpty)
        #expect(try await sandbox.chat(id)["draft"] as? String == "take your time")
    }

    @Test("a server that trickles its response headers, a line every moment, is ended there, the question kept")
    func tricklingHeaders() async throws {
        let server = try LoopbackServer(
            LoopbackServer.openAI { _, responder in
                responder.raw("HTTP/1.1 200 OK\r\n")
                for index in 0..<6000 where responder.raw("X-Slow-\(index): a\r\n") { usleep(50_000) }
            })
        let sandbox = try await sandbox(for: server, key: nil)
        #expect(try await sandbox.run("settings", "set", "answerTimeoutSeconds", "2").status == .exited(0))
        let asked = try await sandbox.run("ask", "are you there?")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(
            asked.stderr.contains(
                "keep: the server at \(server.baseURL) did not finish its response headers within 2 seconds; "
                    + "gave up; the question is kept"), "\(asked)")
        #expect(try await sandbox.chat(try #require(asked.chatId))["draft"] as? String == "are you there?")
    }

    @Test("answerTimeoutSeconds takes whole seconds from 1 to 86400, and an answer within it is whole")
    func answerTimeoutSetting() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["in ", "time"]))
        let sandbox = try await sandbox(for: server, key: nil)
        for refused in ["0", "1.5", "86401", "soon"] {
            #expect(try await sandbox.run("settings", "set", "answerTimeoutSeconds", refused).status == .exited(1))
        }
        #expect(try await sandbox.run("settings", "get", "answerTimeoutSeconds").stdout == "600\n")
        #expect(try await sandbox.run("settings", "set", "answerTimeoutSeconds", "30").status == .exited(0))
        let asked = try await sandbox.run("ask", "quick")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "in time\n")
    }

    @Test("an 8 MiB response header is one line that says what happened, never \"Out of memory\" alone")
    func hugeResponseHeader() async throws {
        let server = try LoopbackServer(
            LoopbackServer.openAI { _, responder in
                responder.raw("HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "a", count: 8 << 20) + "\r\n\r\n")
            })
        let sandbox = try await sandbox(for: server, key: nil)
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(
            asked.stderr.contains(
                "the request to \(server.baseURL) failed: the server's response headers are larger than the HTTP "
                    + "library reads"), "\(asked)")
        #expect(!asked.stderr.contains("NSURLErrorDomain"))
    }

    @Test("an answer under the size limit is whole")
    func answerUnderTheLimit() async throws {
        let long = String(repeating: "y", count: 600_000)
        let server = try LoopbackServer(LoopbackServer.streaming([long, long.uppercased()]))
        let sandbox = try await sandbox(for: server, key: nil)
        #expect(try await sandbox.run("settings", "set", "answerLimitMiB", "2").status == .exited(0))
        let asked = try await sandbox.run("ask", "a long one")
        #expect(asked.status == .exited(0), "\(asked.stderr)")
        #expect(asked.stdout == long + long.uppercased() + "\n")
    }

    @Test(
        "a 200 answer that is not an event stream is named as such",
        arguments: [
            (
                "text/html; charset=utf-8", "<html><body>Welcome to nginx!</body></html>",
                "answered a web page (text/html"
            ),
            ("application/json", "{\"object\":\"list\",\"data\":[]}", "answered JSON that holds no answer"),
            ("text/plain", "just words\n", "answered something that is not an event stream (text/plain)"),
        ])
    func notAnEventStream(type: String, body: String, named: String) async throws {
        let server = try LoopbackServer(
            LoopbackServer.openAI { _, responder in
                responder.send(status: 200, headers: ["Content-Type": type], body: body)
            })
        let sandbox = try await sandbox(for: server, key: nil)
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(1))
        #expect(asked.stderr.contains("keep: the server at \(server.baseURL) \(named)"), "\(asked)")
        #expect(try await sandbox.messages(try #require(asked.chatId)).isEmpty)
    }

    // MARK: - baseUrl

    @Test(
        "keep settings set refuses a baseUrl that breaks a rule, naming the rule, never echoing a password",
        arguments: [
            "http://user:hunter2@example.test/v1", "http://example.test/v1?key=hunter2",
            "http://example.test/v1#hunter2",
            "http://example.test:0/v1", "http://example.test:70000/v1", "ftp://example.test/hunter2",
            "file:///hunter2", "http:///hunter2",
        ])
    func badBaseURLRefused(_ url: String) async throws {
        let sandbox = try Sandbox()
        let set = try await sandbox.run("settings", "set", "baseUrl", url)
        #expect(set.status == .exited(1), "\(set)")
        #expect(set.stderr.contains("baseUrl must be an http:// or https:// URL with a host"), "\(set)")
        #expect(!set.stderr.contains("hunter2") && !set.stdout.contains("hunter2"))
        #expect(try await sandbox.run("settings", "get", "baseUrl").stdout == "http://127.0.0.1:8080/v1\n")
    }

    @Test(
        "keep settings set accepts a baseUrl that keeps every rule",
        arguments: [
            "https://api.example.test/v1", "http://127.0.0.1:8080/v1", "http://localhost.:8080/v1",
            "http://localhost:65535",
            "HTTPS://Example.test:1/v1/",
        ])
    func goodBaseURLAccepted(_ url: String) async throws {
        let sandbox = try Sandbox()
        let set = try await sandbox.run("settings", "set", "baseUrl", url)
        #expect(set.status == .exited(0), "\(set)")
        #expect(try await sandbox.run("settings", "get", "baseUrl").stdout == url + "\n")
    }

    @Test("keep settings set refuses an IPv6 address in brackets, saying why, rather than failing at every ask")
    func ipv6LiteralRefused() async throws {
        let sandbox = try Sandbox()
        let set = try await sandbox.run("settings", "set", "baseUrl", "http://[::1]:11434/v1")
        #expect(set.status == .exited(1), "\(set)")
        #expect(
            set.stderr.contains(
                "not an IPv6 address in brackets, which the HTTP library keep uses on Linux cannot connect to "
                    + "(use 127.0.0.1 for this machine)"), "\(set)")
        #expect(!set.stderr.contains("NSURLErrorDomain"))
        #expect(try await sandbox.run("settings", "get", "baseUrl").stdout == "http://127.0.0.1:8080/v1\n")
    }

    @Test("a stored baseUrl that breaks a rule is reported by keep doctor, never used, and its password never shown")
    func legacyBaseURLReported() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["should not be asked"]))
        let sandbox = try await sandbox(for: server, key: nil)
        let settingsFile = sandbox.file("settings", "settings")
        let legacy = "http://admin:hunter2@127.0.0.1:\(server.port)/v1"
        try "{\"engineId\":\"remote\",\"baseUrl\":\"\(legacy)\",\"model\":\"test-model\"}".write(
            toFile: settingsFile, atomically: true, encoding: .utf8)
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("baseUrl"), "\(doctor)")
        #expect(doctor.stdout.contains("baseUrl must be an http:// or https:// URL"), "\(doctor)")
        #expect(!doctor.stdout.contains("hunter2") && !doctor.stderr.contains("hunter2"))
        _ = try await sandbox.run("ask", "hi")
        // The server `default` keeps the address it was carried over with (keep servers); the
        // refused one, user and password and all, is never sent.
        #expect(server.requests.allSatisfy { $0.header("Authorization") == nil }, "the refused address is not used")
        #expect(try String(contentsOfFile: settingsFile, encoding: .utf8).contains(legacy), "and left as it was")
    }

    // MARK: - What goes out

    /// The headers keep's requests carry, as docs/keep-guide.md lists them ("What keep sends").
    static let documentedHeaders: Set<String> = [
        "host", "user-agent", "accept", "accept-encoding", "accept-language", "connection", "content-type",
        "content-length", "authorization",
    ]

    @Test("every request carries User-Agent keep/<version> and only the headers the guide lists")
    func headersSent() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try await sandbox(for: server)
        let version = try await sandbox.run("--version").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.hasPrefix("keep "), "\(version)")
        #expect(try await sandbox.run("ask", "hi").status == .exited(0))
        #expect(try await sandbox.run("engines").status == .exited(0))
        let requests = server.requests
        try #require(requests.count == 2, "the chat and the model list: \(requests.map(\.path))")
        for request in requests {
            let names = Set(request.headers.map { $0.name.lowercased() })
            #expect(names.isSubset(of: Self.documentedHeaders), "\(request.path): \(names)")
            #expect(request.header("User-Agent") == "keep/" + version.dropFirst("keep ".count), "\(request.headers)")
            #expect(request.header("Authorization") == "Bearer \(Self.key)")
            #expect(request.header("Host") == "127.0.0.1:\(server.port)")
            #expect(request.headers.filter { $0.name.lowercased() == "user-agent" }.count == 1)
        }
        #expect(requests[0].header("Content-Type") == "application/json")
        #expect(requests[0].header("Accept") == "text/event-stream")
        #expect(requests[1].header("Accept") == "application/json")
    }

    @Test("a remote turn under umask 000 creates nothing in XDG_DATA_HOME or HOME but keep's own data root")
    func nothingOutsideTheDataRoot() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        var sandbox = try await sandbox(for: server)
        sandbox.launcher = ["/bin/sh", "-c", "umask 000 && exec \"$@\"", "sh"]
        let folder = sandbox.directory.path
        func entries(_ path: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        }
        // The same listing sees what a run makes: the data root, made by the settings above.
        #expect(try entries(sandbox.dataHome) == ["keep"], "\(folder)")
        let homeBefore = try entries(sandbox.home)
        #expect(try await sandbox.run("ask", "hi").status == .exited(0))
        #expect(try await sandbox.run("engines").status == .exited(0))
        #expect(try entries(sandbox.dataHome) == ["keep"], "nothing beside the data root")
        #expect(try entries(sandbox.home) == homeBefore, "nothing in HOME (no cache, no cookies)")
    }

    // MARK: - The process

    @Test("a keep holding a key cannot dump core: its core size limit is 0 and it is not dumpable")
    func noCoreDump() async throws {
        let directory = try Sandbox()
        let folder = directory.directory.path
        // First, that this machine writes core files at all: a control process dumps one.
        var control = try Sandbox()
        control.launcher = ["/bin/sh", "-c", "ulimit -c unlimited; cd \"$0\" && kill -QUIT $$", folder]
        let controlProcess = try control.start([])
        #expect(await controlProcess.exit() == .signaled(SIGQUIT))
        try #require(
            controlProcess.dumpedCore == true, "this machine writes no core files, so their absence proves nothing")

        let gate = Gate()
        defer { gate.open() }
        let server = try LoopbackServer(LoopbackServer.streaming(["first", "second"], gate: gate, before: 1))
        var sandbox = try await sandbox(for: server)
        // Started the hard way: unlimited core size, as a careless shell would leave it.
        sandbox.launcher = ["/bin/sh", "-c", "ulimit -c unlimited; cd \"$0\" && exec \"$@\"", folder]
        let keep = try sandbox.start(["ask", "hold the key"])
        keep.closeInput()  // nothing piped: the question is the argument alone
        #expect(await keep.output.wait(for: "first"), "keep is mid-answer, the key read")
        let limits = try String(contentsOfFile: "/proc/\(keep.pid)/limits", encoding: .utf8)
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(
            core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(core)")
        keep.send(SIGQUIT)
        #expect(await keep.exit() == .signaled(SIGQUIT))
        #expect(keep.dumpedCore == false)

        let doctor = try await sandbox.run("doctor", "--json")
        let report = try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any]
        let checks = try #require(report?["checks"] as? [[String: Any]])
        let check = try #require(checks.first { $0["name"] as? String == "core dumps" })
        #expect(check["status"] as? String == "ok", "\(check)")
    }
}
