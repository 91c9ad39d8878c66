import Foundation
import Testing

/// The cleartext and proxy rules, proven without leaving the machine: keep and its servers
/// run in a network namespace of the test's own, where 192.0.2.1 (TEST-NET-1) is a host
/// that is not loopback. Skipped, saying why, where `unshare -n` is not permitted.
@Suite(
    "A key never crosses a network in clear, and loopback never goes through a proxy",
    .needsNetworkNamespace)
struct CleartextTests {
    static let key = "sk-cleartext-test-42"

    /// A sandbox that runs keep inside `namespace`, its remote engine asking `server`.
    private func sandbox(
        in namespace: NetworkNamespace, for server: LoopbackServer, key: String?
    ) async throws -> Sandbox {
        var sandbox = try Sandbox()
        sandbox.launcher = namespace.launcher
        if let key { sandbox.extra["OPENAI_API_KEY"] = key }
        try await sandbox.useRemote(server)
        return sandbox
    }

    @Test("a key is never sent over plain http to a host that is not loopback: refused before a byte reaches it")
    func keyRefusedOverHTTP() async throws {
        let namespace = try NetworkNamespace()
        let server = try await namespace.listen {
            try LoopbackServer(host: NetworkNamespace.address, LoopbackServer.streaming(["over the network"]))
        }
        // Without a key, keep reaches that server: the refusal below is not a missing route.
        let keyless = try await sandbox(in: namespace, for: server, key: nil)
        let plain = try await keyless.run("ask", "no key here")
        #expect(plain.status == .exited(0), "\(plain)")
        #expect(plain.stdout == "over the network\n")
        #expect(server.connections == 1 && server.requests.first?.header("Authorization") == nil)

        let withKey = try await sandbox(in: namespace, for: server, key: Self.key)
        let refused = try await withKey.run("ask", "a secret question")
        #expect(refused.status == .exited(1), "\(refused)")
        #expect(server.connections == 1, "not even a connection")
        let id = try #require(refused.chatId)
        #expect(
            refused.stderr.contains(
                "keep: refused to send the API key in openai/\"default\" over plain http to 192.0.2.1, which is not "
                    + "this machine"), "\(refused)")
        #expect(refused.stderr.contains("keep settings set keyOverHttpHosts 192.0.2.1"))
        #expect(try await withKey.chat(id)["draft"] as? String == "a secret question")

        // The model list: not asked either, and the reading says why.
        let listed = try await withKey.run("engines")
        #expect(server.connections == 1, "\(listed)")
        #expect(
            listed.stdout.contains("not asked: keep does not send the key over plain http to 192.0.2.1"), "\(listed)")

        let doctor = try await withKey.run("doctor")
        #expect(doctor.stdout.contains("key over http"), "\(doctor)")
        #expect(doctor.stdout.contains("keep refuses to send it"), "\(doctor)")
        #expect(doctor.status == .exited(1), "a problem")
    }

    @Test("a host named in keyOverHttpHosts gets the key over plain http, and keep doctor notes it")
    func keyAllowedByName() async throws {
        let namespace = try NetworkNamespace()
        let server = try await namespace.listen {
            try LoopbackServer(host: NetworkNamespace.address, LoopbackServer.streaming(["trusted"]))
        }
        let sandbox = try await sandbox(in: namespace, for: server, key: Self.key)
        #expect(try await sandbox.run("settings", "set", "keyOverHttpHosts", "192.0.2.1").status == .exited(0))
        let asked = try await sandbox.run("ask", "hi")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(server.requests.first?.header("Authorization") == "Bearer \(Self.key)")
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("as keyOverHttpHosts allows"), "\(doctor)")
    }

    @Test("a request to loopback never goes through http_proxy or https_proxy; one to another host does")
    func loopbackBypassesTheProxy() async throws {
        let namespace = try NetworkNamespace()
        let (proxy, remote, local) = try await namespace.listen {
            (
                try LoopbackServer { request, responder in
                    // A proxy that relays nothing: it records, and answers as the far server would.
                    LoopbackServer.streaming(["via the proxy"])(request, responder)
                },
                try LoopbackServer(host: NetworkNamespace.address, LoopbackServer.streaming(["direct"])),
                try LoopbackServer(LoopbackServer.streaming(["local"]))
            )
        }
        var sandbox = try await sandbox(in: namespace, for: remote, key: nil)
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"] {
            sandbox.extra[name] = proxy.origin
        }
        // Another host: the proxy is used (so the variables are read, and the check below can see it).
        let viaProxy = try await sandbox.run("ask", "far away")
        #expect(viaProxy.status == .exited(0), "\(viaProxy)")
        #expect(viaProxy.stdout == "via the proxy\n")
        #expect(proxy.requests.first?.path == "\(remote.baseURL)/chat/completions", "an absolute URI, as to a proxy")
        #expect(remote.connections == 0)

        // Loopback: straight to the server, the proxy never contacted.
        #expect(try await sandbox.run("settings", "set", "baseUrl", local.baseURL).status == .exited(0))
        let direct = try await sandbox.run("ask", "close by")
        #expect(direct.status == .exited(0), "\(direct)")
        #expect(direct.stdout == "local\n")
        #expect(proxy.connections == 1)
        #expect(local.requests.count == 1)
    }

    @Test(
        "a key goes over https to a host that is not loopback when keep trusts its certificate; an untrusted one gets nothing"
    )
    func keyOverTLS() async throws {
        let namespace = try NetworkNamespace()
        var sandbox = try Sandbox()
        let tls = try TLSServer(
            host: NetworkNamespace.address,
            files: ["v1/models": "{\"object\":\"list\",\"data\":[{\"id\":\"tls-model\"}]}"],
            in: sandbox.directory, launcher: namespace.launcher)
        sandbox.extra["OPENAI_API_KEY"] = Self.key
        sandbox.launcher = namespace.launcher
        for (key, value) in [("engineId", "remote"), ("baseUrl", tls.baseURL)] {
            #expect(try await sandbox.run("settings", "set", key, value).status == .exited(0))
        }
        // The system's authorities do not vouch for the test's certificate: no list.
        let untrusted = try await sandbox.run("engines")
        #expect(untrusted.stdout.contains("now:  no answer ("), "\(untrusted)")
        #expect(!untrusted.stdout.contains("tls-model") && !untrusted.stdout.contains("not asked"))

        // Trusted (in keep's own mount namespace only): the list, read with the key, over TLS.
        sandbox.launcher = namespace.launcher + tls.trustingLauncher
        let trusted = try await sandbox.run("engines")
        #expect(trusted.status == .exited(0), "\(trusted)")
        #expect(trusted.stdout.contains("models: tls-model"), "\(trusted)")
        #expect(!trusted.stdout.contains(Self.key) && !trusted.stderr.contains(Self.key))
    }
}
