import Foundation
import KeepTestSupport
import Testing

/// A server added with `--ca FILE`, asked over TLS verified against that file's certificates
/// alone (libcurl), never against the system's authorities and never unverified. Each server
/// is a ``TLSFront`` before a ``LoopbackServer`` that records whatever reaches it; every
/// certificate is made by a ``TestAuthority`` of the test's own, and no system file changes.
@Suite("A server verified against its own authority (--ca), end to end")
struct PrivateAuthorityTests {
    static let key = "sk-private-authority-0123456789"

    /// A sandbox with the key in the environment (no keyring: process memory).
    private func sandbox() throws -> Sandbox {
        var sandbox = try Sandbox()
        sandbox.extra["OPENAI_API_KEY"] = Self.key
        return sandbox
    }

    /// `keep servers add NAME URL [--ca FILE]`, which must succeed.
    private func add(_ sandbox: Sandbox, _ name: String, _ url: String, ca: String? = nil) async throws {
        let added = try await sandbox.run(["servers", "add", name, url] + (ca.map { ["--ca", $0] } ?? []))
        guard added.status == .exited(0) else { throw SandboxFailure("servers add failed:\n\(added)") }
    }

    /// A TLS server for `backend` whose certificate `authority` issued for `host`.
    private func front(
        _ backend: LoopbackServer, by authority: TestAuthority, for host: String = "127.0.0.1", days: Int = 1,
        as name: String = "server"
    ) throws -> TLSFront {
        try TLSFront(backend, issued: try authority.issue(for: host, days: days, as: name))
    }

    /// An IPv4 address of this machine that is not loopback (a proxy is never used for
    /// loopback, whatever the transport), or `nil`.
    static let outwardAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var node = list
        while let current = node {
            defer { node = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let found = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var bytes = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) != nil
            }
            let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if found, !name.hasPrefix("127.") { return name }
        }
        return nil
    }()

    @Test(
        "a --ca server is asked directly, never through the proxy the environment names; another server goes through it",
        .enabled(if: outwardAddress != nil, "needs an IPv4 address of this machine that is not loopback"))
    func noProxyFromTheEnvironment() async throws {
        let address = try #require(Self.outwardAddress)
        // A proxy that records every connection and forwards nothing.
        let proxy = try LoopbackServer(LoopbackServer.failing(status: 502, body: "no"))
        let backend = try LoopbackServer(LoopbackServer.streaming(["asked directly"]))
        var sandbox = try sandbox()
        for name in ["https_proxy", "HTTPS_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
            sandbox.extra[name] = proxy.origin
        }
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let front = try TLSFront(backend, issued: try lab.issue(for: address), on: address)
        // The pair first: a server without --ca is asked through the proxy (keep's rule for
        // every host but this machine's loopback), so the proxy sees what goes through it.
        try await add(sandbox, "open", front.baseURL)
        let proxied = try await sandbox.run("ask", "-s", "open", "through the proxy")
        #expect(proxied.status == .exited(1), "the proxy forwards nothing: \(proxied)")
        #expect(proxy.connections >= 1, "the proxy saw the request without --ca: \(proxied)")
        #expect(backend.requests.isEmpty)

        let seen = proxy.connections
        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        let asked = try await sandbox.run("ask", "-s", "lab", "directly")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "asked directly\n")
        #expect(proxy.connections == seen, "the proxy saw nothing of the --ca server's request")
        #expect(backend.requests.count == 1 && front.handshakes == 1)
    }

    @Test("a --ca server answers a question, streamed, with the key sent in its header")
    func answersStreamed() async throws {
        let gate = Gate()
        defer { gate.open() }
        let backend = try LoopbackServer(LoopbackServer.streaming(["over ", "TLS"], gate: gate, before: 1))
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let front = try front(backend, by: lab)
        let notPEM = sandbox.directory.appending("not.pem")
        try "hello".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let refused = try await sandbox.run("servers", "add", "lab", front.baseURL, "--ca", notPEM)
        #expect(refused.status == .exited(1), "a file that holds no certificate is refused: \(refused)")
        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        #expect(try await sandbox.run("servers", "--json").stdout.contains("\"ca\" : \"\(lab.certificate)\""))

        let keep = try sandbox.start(["ask", "-s", "lab", "hello over TLS"])
        keep.closeInput()
        #expect(await keep.output.wait(for: "over "), "the first piece is shown while the server holds the rest")
        #expect(!keep.output.text.contains("TLS"))
        gate.open()
        #expect(await keep.exit() == .exited(0))
        #expect(await keep.output.waitForEnd() == "over TLS\n")
        let request = try #require(backend.requests.first)
        #expect(request.path == "/v1/chat/completions")
        #expect(request.header("Authorization") == "Bearer \(Self.key)")
        #expect(request.header("Host") == "127.0.0.1:\(front.port)")
        #expect(request.header("User-Agent")?.hasPrefix("keep/") == true, "\(request.headers)")
        #expect(request.header("Accept") == "text/event-stream")
        let names = Set(request.headers.map { $0.name.lowercased() })
        #expect(names.isSubset(of: NetworkEdgeTests.documentedHeaders), "only the headers the guide lists: \(names)")
        let messages = request.json?["messages"] as? [[String: Any]]
        #expect(messages?.last?["content"] as? String == "hello over TLS")
        #expect(front.handshakes == 1)
        let ids = try await sandbox.run("store", "ls", "chats").stdout.split(separator: "\n")
        #expect(try await sandbox.messages(String(try #require(ids.first))) == ["hello over TLS", "over TLS"])
    }

    @Test(
        "a server whose certificate another authority signed gets nothing, not the key nor the question; the line says why"
    )
    func otherAuthorityRefused() async throws {
        let backend = try LoopbackServer(LoopbackServer.streaming(["verified"]))
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let other = try TestAuthority("other authority", in: sandbox.directory)
        let front = try front(backend, by: other)
        // The pair first: verified against the authority that signed it, the same server is asked.
        try await add(sandbox, "signer", front.baseURL, ca: other.certificate)
        let pair = try await sandbox.run("ask", "-s", "signer", "first")
        #expect(pair.status == .exited(0), "\(pair)")
        #expect(backend.requests.count == 1 && front.handshakes == 1)

        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        let asked = try await sandbox.run("ask", "-s", "lab", "a private question")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(
            asked.stderr.contains(
                "keep: refused the server at \(front.baseURL): its certificate is not signed by the authority in "
                    + "\(lab.certificate) (its --ca); nothing was sent"), "\(asked)")
        #expect(backend.requests.count == 1, "no request, so neither the key nor the question, reached it")
        #expect(backend.connections == 1 && front.handshakes == 1, "the handshake ended before anything was relayed")
        #expect(!asked.stderr.contains(Self.key) && asked.stdout.isEmpty)
        #expect(try await sandbox.chat(try #require(asked.chatId))["draft"] as? String == "a private question")
    }

    @Test(
        "a certificate for another name, or one that has expired, is refused before anything is sent",
        arguments: [
            ("another name", "127.0.0.2", 1, "its certificate is for another name than 127.0.0.1"),
            ("expired", "127.0.0.1", -1, "its certificate has expired"),
        ])
    func wrongCertificateRefused(what: String, host: String, days: Int, said: String) async throws {
        let backend = try LoopbackServer(LoopbackServer.streaming(["verified"]))
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        // The pair: the same authority's certificate for this name, valid now, is taken.
        let good = try front(backend, by: lab, as: "good")
        try await add(sandbox, "good", good.baseURL, ca: lab.certificate)
        #expect(try await sandbox.run("ask", "-s", "good", "first").status == .exited(0))
        #expect(backend.requests.count == 1)

        let bad = try front(backend, by: lab, for: host, days: days, as: "bad")
        try await add(sandbox, "lab", bad.baseURL, ca: lab.certificate)
        let asked = try await sandbox.run("ask", "-s", "lab", "a private question")
        #expect(asked.status == .exited(1), "\(what): \(asked)")
        #expect(
            asked.stderr.contains("keep: refused the server at \(bad.baseURL): \(said); nothing was sent"),
            "\(what): \(asked)")
        // An expired chain ends the handshake; a name is checked by libcurl once the handshake is
        // over, before the request: either way no request reached the server.
        #expect(backend.requests.count == 1, "\(what): nothing reached the server")
    }

    @Test(
        "an authority file that can no longer be read as certificates is refused before anything is sent",
        arguments: ["removed", "no longer PEM"])
    func unreadableAuthorityRefused(what: String) async throws {
        let backend = try LoopbackServer(LoopbackServer.streaming(["verified"]))
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let front = try front(backend, by: lab)
        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        // The pair first: while the file holds the authority, the server is asked.
        #expect(try await sandbox.run("ask", "-s", "lab", "first").status == .exited(0))
        #expect(backend.requests.count == 1)

        try FileManager.default.removeItem(atPath: lab.certificate)
        if what == "no longer PEM" { try "hello".write(toFile: lab.certificate, atomically: true, encoding: .utf8) }
        let asked = try await sandbox.run("ask", "-s", "lab", "a private question")
        #expect(asked.status == .exited(1), "\(what): \(asked)")
        #expect(
            asked.stderr.contains(
                "keep: refused the server at \(front.baseURL): the authority file \(lab.certificate) (its --ca) cannot "
                    + "be read as PEM certificates; nothing was sent"), "\(what): \(asked)")
        #expect(backend.requests.count == 1 && front.handshakes == 1, "\(what): nothing reached the server")
    }

    /// Whether a test may start keep in a mount namespace of its own (`unshare -m`), or why not.
    static let mountNamespaceRefused: String? = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "unshare cannot be started" }
        return probe.waitForExit() == 0 ? nil : "unshare -m is not permitted here (root or CAP_SYS_ADMIN)"
    }()

    @Test(
        "the system's authorities do not vouch for a --ca server: one trusted system-wide is refused for it",
        .enabled(if: mountNamespaceRefused == nil, "needs a mount namespace of its own (unshare -m)"))
    func systemAuthoritiesDoNotVouch() async throws {
        let backend = try LoopbackServer(LoopbackServer.streaming(["via the system's authorities"]))
        var sandbox = try sandbox()
        let system = try TestAuthority("system-wide authority", in: sandbox.directory)
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let front = try front(backend, by: system)
        // Trusted every way a TLS library looks: OpenSSL's variables, and, in keep's own mount
        // namespace, /etc/ssl/certs itself (its bundle and its hashed links) holding it alone.
        let certs = try system.systemFolder()
        sandbox.extra["SSL_CERT_FILE"] = system.certificate
        sandbox.extra["SSL_CERT_DIR"] = certs
        sandbox.launcher = [
            "/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount --bind \"$0\" /etc/ssl/certs && exec \"$@\"", certs,
        ]
        // The pair: without --ca, the system's authorities (now that one) vouch, and it is asked.
        try await add(sandbox, "open", front.baseURL)
        let pair = try await sandbox.run("ask", "-s", "open", "first")
        #expect(pair.status == .exited(0), "\(pair)")
        #expect(pair.stdout == "via the system's authorities\n")
        #expect(backend.requests.count == 1)

        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        let asked = try await sandbox.run("ask", "-s", "lab", "a private question")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(
            asked.stderr.contains("its certificate is not signed by the authority in \(lab.certificate)"), "\(asked)")
        #expect(backend.requests.count == 1, "nothing reached the server")
    }

    @Test("a --ca server with a plain http URL is refused when added, and asked, before anything connects")
    func plainHTTPRefused() async throws {
        let backend = try LoopbackServer(LoopbackServer.streaming(["unverified"]))
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let added = try await sandbox.run("servers", "add", "lab", backend.baseURL, "--ca", lab.certificate)
        #expect(added.status == .exited(2), "\(added)")
        #expect(added.stderr.contains("--ca needs an https:// URL: plain http has no certificate to verify"))
        // The pair: the same URL without --ca is taken.
        try await add(sandbox, "open", backend.baseURL)

        // A servers file edited by hand to say so is refused when asked.
        let https = "https://127.0.0.1:\(backend.port)/v1"
        try await add(sandbox, "lab", https, ca: lab.certificate)
        let profiles = try await sandbox.run("store", "get", "settings", "profiles").stdout
        #expect(profiles.contains(https))
        let edited = profiles.replacingOccurrences(of: https, with: backend.baseURL)
        #expect(try await sandbox.run(["store", "put", "settings", "profiles"], input: edited).status == .exited(0))
        let asked = try await sandbox.run("ask", "-s", "lab", "hi")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(
            asked.stderr.contains(
                "its URL is plain http, which has no certificate to verify against \(lab.certificate) (its --ca); "
                    + "nothing was sent"), "\(asked)")
        #expect(backend.connections == 0)
    }

    @Test("a --ca server's redirect to another origin is not followed: the other server gets nothing")
    func redirectNotFollowed() async throws {
        let elsewhere = try LoopbackServer(LoopbackServer.streaming(["from elsewhere"]))
        let backend = try LoopbackServer(
            LoopbackServer.redirecting(status: 307, to: elsewhere.baseURL + "/chat/completions"))
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let front = try front(backend, by: lab)
        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        let asked = try await sandbox.run("ask", "-s", "lab", "a private question")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(backend.requests.first?.header("Authorization") == "Bearer \(Self.key)", "the key went to the server")
        #expect(
            asked.stderr.contains(
                "keep: the server at \(front.baseURL) redirected the request (HTTP 307) from https to plain http "
                    + "(\(elsewhere.baseURL)/chat/completions); keep never follows that"), "\(asked)")
        #expect(elsewhere.connections == 0, "nothing, not even a connection, reached the other origin")
    }

    // MARK: - The limits, on the libcurl path

    /// A server that answers, for each case: how, the setting the case sets, and the line that ends the turn.
    static let limits: [(name: String, handler: LoopbackServer.Handler, setting: (String, String)?, said: String)] = [
        (
            "an endless answer", LoopbackServer.endless(String(repeating: "x", count: 1000)), ("answerLimitMiB", "1"),
            "passed 1 MiB (the answerLimitMiB setting); stopped reading it"
        ),
        (
            "a comment line every moment",
            LoopbackServer.openAI { _, responder in
                responder.beginEvents()
                responder.content("so far ")
                for _ in 0..<6000 where responder.chunkSent(": still thinking\n") { usleep(50_000) }
            }, ("answerTimeoutSeconds", "2"), "took longer than 2 seconds (the answerTimeoutSeconds setting)"
        ),
        (
            "a header line every moment",
            LoopbackServer.openAI { _, responder in
                responder.raw("HTTP/1.1 200 OK\r\n")
                for index in 0..<6000 where responder.raw("X-Slow-\(index): a\r\n") { usleep(50_000) }
            }, ("answerTimeoutSeconds", "2"), "did not finish its response headers within 2 seconds"
        ),
        (
            "an 8 MiB response header",
            LoopbackServer.openAI { _, responder in
                responder.raw("HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "a", count: 8 << 20) + "\r\n\r\n")
            }, nil, "failed: the server's response headers are larger than keep reads"
        ),
    ]

    @Test(
        "on the libcurl path the size and time limits end the turn with one line, the question kept", arguments: 0..<4)
    func limitsHold(index: Int) async throws {
        let limit = Self.limits[index]
        let backend = try LoopbackServer(limit.handler)
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let front = try front(backend, by: lab)
        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        if let (name, value) = limit.setting {
            #expect(try await sandbox.run("settings", "set", name, value).status == .exited(0))
        }
        let asked = try await sandbox.run("ask", "-s", "lab", "go on")
        #expect(asked.status == .exited(1), "\(limit.name): \(asked)")
        #expect(asked.stderr.contains(limit.said), "\(limit.name): \(asked)")
        #expect(asked.stdout.utf8.count < 1 << 20, "no more than the limit was read")
        #expect(try await sandbox.chat(try #require(asked.chatId))["draft"] as? String == "go on")
    }

    @Test("Ctrl-C during an answer from a --ca server stops it and closes the connection")
    func ctrlCClosesTheConnection() async throws {
        let gone = Gate()
        let backend = try LoopbackServer(
            LoopbackServer.openAI { _, responder in
                responder.beginEvents()
                responder.content("partial ")
                // Keep-alive comments until keep has gone away.
                for _ in 0..<6000 where responder.chunkSent(": still thinking\n") { usleep(50_000) }
                gone.open()
            })
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let front = try front(backend, by: lab)
        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        let chat = try sandbox.start(["chat", "-s", "lab"], terminal: true)
        #expect(await chat.output.wait(for: "> "))
        let mark = chat.output.count
        chat.write("the slow one\r")
        #expect(await chat.output.wait(for: "partial", after: mark), "the answer is streaming")
        chat.write("\u{03}")
        #expect(await chat.output.wait(for: "(stopped; the question is kept", after: mark))
        #expect(gone.wait(seconds: 60), "the transfer ended: the server's sends fail")
        #expect(chat.isRunning, "Ctrl-C stopped the answer, not keep")
        #expect(await chat.quitAtThePrompt(after: "(stopped;"))
        #expect(await chat.exit() == .exited(0))
    }

    @Test("on the libcurl path the key never reaches an error line, the output or a file")
    func keyStaysOut() async throws {
        let backend = try LoopbackServer(
            LoopbackServer.openAI { request, responder in
                // A server that quotes the header it was sent in its refusal.
                let sent = request.header("Authorization") ?? ""
                responder.send(status: 401, body: "{\"error\":{\"message\":\"bad credentials: \(sent)\"}}")
            })
        let sandbox = try sandbox()
        let lab = try TestAuthority("lab authority", in: sandbox.directory)
        let other = try TestAuthority("other authority", in: sandbox.directory)
        let front = try front(backend, by: lab)
        try await add(sandbox, "lab", front.baseURL, ca: lab.certificate)
        let refusedKey = try await sandbox.run("ask", "-s", "lab", "a private question")
        #expect(refusedKey.status == .exited(1), "\(refusedKey)")
        #expect(backend.requests.first?.header("Authorization") == "Bearer \(Self.key)", "the key was sent")
        #expect(refusedKey.stderr.contains("bad credentials: Bearer [your key]"), "\(refusedKey)")
        try await add(sandbox, "wrong", front.baseURL, ca: other.certificate)
        let refusedServer = try await sandbox.run("ask", "-s", "wrong", "a private question")
        #expect(refusedServer.status == .exited(1), "\(refusedServer)")
        for run in [refusedKey, refusedServer] {
            #expect(!run.stderr.contains(Self.key) && !run.stdout.contains(Self.key), "\(run)")
        }
        // The pair: the scan sees what is there (the question, kept as the draft).
        let scan = try DiskScan(sandbox.directory.path)
        #expect(scan.contains("a private question"))
        #expect(!scan.contains(Self.key))
    }
}
