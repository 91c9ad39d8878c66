import Foundation
import KeepConformance
import Testing

/// "This machine" is where a name goes, not how it is spelled: keep, its servers and a
/// resolver of the test's own (``DNSResponder``) run in a network namespace of the test's
/// own, where 192.0.2.1 (TEST-NET-1) is a host that is not loopback and nothing else is
/// reachable. Skipped, saying why, where `unshare -n` is not permitted.
@Suite(
    "This machine is decided by where a name goes, never by its spelling",
    .needsNetworkNamespace)
struct ThisMachineTests {
    static let key = "sk-this-machine-test-7"

    /// A sandbox that runs keep inside `namespace` with `dns` as its resolver, its remote
    /// engine asking `baseURL`.
    private func sandbox(
        _ namespace: NetworkNamespace, _ dns: DNSResponder, baseURL: String, key: String?
    ) async throws -> Sandbox {
        var sandbox = try Sandbox()
        sandbox.launcher = namespace.launcher + dns.launcher
        if let key { sandbox.extra["OPENAI_API_KEY"] = key }
        for (name, value) in [("engineId", "remote"), ("baseUrl", baseURL), ("model", "test-model")] {
            let set = try await sandbox.run("settings", "set", name, value)
            guard set.status == .exited(0) else { throw SandboxFailure("settings set \(name) failed:\n\(set)") }
        }
        return sandbox
    }

    @Test(
        "a name spelled like loopback that resolves elsewhere never gets the key in clear; keyless, it is reached",
        arguments: ["localhost.", "LocalHost.", "127.evil.test"])
    func loopbackSpellingResolvingElsewhere(_ host: String) async throws {
        let namespace = try NetworkNamespace()
        let directory = try TemporaryDirectory(prefix: "keep-dns")
        let (dns, far) = try await namespace.listen {
            (
                try DNSResponder(["localhost": [["192.0.2.1"]], "127.evil.test": [["192.0.2.1"]]], in: directory),
                try LoopbackServer(host: NetworkNamespace.address, LoopbackServer.streaming(["from afar"]))
            )
        }
        let baseURL = "http://\(host):\(far.port)/v1"
        // Without a key, the name goes to the far server: the refusal below is not a missing route.
        let keyless = try await sandbox(namespace, dns, baseURL: baseURL, key: nil)
        let reached = try await keyless.run("ask", "no key here")
        #expect(reached.status == .exited(0), "\(reached)")
        #expect(far.connections == 1 && far.requests.first?.header("Authorization") == nil)

        let withKey = try await sandbox(namespace, dns, baseURL: baseURL, key: Self.key)
        let refused = try await withKey.run("ask", "a secret question")
        #expect(refused.status == .exited(1), "\(refused)")
        #expect(far.connections == 1, "not even a connection")
        #expect(
            refused.stderr.contains(
                "over plain http to \(host.lowercased()), which is not this machine (it resolves to 192.0.2.1): "),
            "\(refused)")
        #expect(try await withKey.chat(try #require(refused.chatId))["draft"] as? String == "a secret question")
        let listed = try await withKey.run("engines")
        #expect(far.connections == 1, "\(listed)")
        #expect(listed.stdout.contains("not asked: keep does not send the key over plain http"), "\(listed)")
        let doctor = try await withKey.run("doctor")
        #expect(doctor.status == .exited(1), "\(doctor)")
        #expect(doctor.stdout.contains("which is not this machine (it resolves to 192.0.2.1)"), "\(doctor)")
    }

    @Test(
        "a name that resolves to loopback alone gets the key, sent to the address keep resolved, not to what the resolver says next"
    )
    func loopbackNamePinned() async throws {
        let namespace = try NetworkNamespace()
        let directory = try TemporaryDirectory(prefix: "keep-dns")
        // keep's own two lookups (is a key needed; may it go in clear) hear loopback; any
        // lookup after them, as the HTTP library's own would be, hears another machine.
        let (dns, local) = try await namespace.listen {
            (
                try DNSResponder(["box.test": [["127.0.0.1"], ["127.0.0.1"], ["192.0.2.1"]]], in: directory),
                try LoopbackServer(LoopbackServer.streaming(["close by"]))
            )
        }
        let far = try await namespace.listen {
            try LoopbackServer(host: NetworkNamespace.address, port: local.port, LoopbackServer.streaming(["afar"]))
        }
        let sandbox = try await sandbox(namespace, dns, baseURL: "http://box.test:\(local.port)/v1", key: Self.key)
        let asked = try await sandbox.run("ask", "hello")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "close by\n")
        let request = try #require(local.requests.first)
        #expect(request.header("Authorization") == "Bearer \(Self.key)")
        #expect(request.header("Host") == "box.test:\(local.port)", "the server sees the name it was given")
        #expect(far.connections == 0, "nothing went where the resolver pointed next")
        #expect(dns.queries("box.test") == 2, "keep connected to the address, never asking the resolver again")

        // The resolver now says another machine: refused, nothing sent there.
        let again = try await sandbox.run("ask", "hello again")
        #expect(again.status == .exited(1), "\(again)")
        #expect(again.stderr.contains("which is not this machine (it resolves to 192.0.2.1)"), "\(again)")
        #expect(far.connections == 0)
    }

    @Test("a same-origin redirect is checked again where it goes: a name that now resolves elsewhere gets nothing")
    func redirectCheckedAgain() async throws {
        let namespace = try NetworkNamespace()
        let directory = try TemporaryDirectory(prefix: "keep-dns")
        let (dns, local) = try await namespace.listen {
            (
                try DNSResponder(["box.test": [["127.0.0.1"], ["127.0.0.1"], ["192.0.2.1"]]], in: directory),
                try LoopbackServer(LoopbackServer.redirecting(status: 307, to: "/v2/chat/completions"))
            )
        }
        let far = try await namespace.listen {
            try LoopbackServer(host: NetworkNamespace.address, port: local.port, LoopbackServer.streaming(["afar"]))
        }
        let sandbox = try await sandbox(namespace, dns, baseURL: "http://box.test:\(local.port)/v1", key: Self.key)
        let asked = try await sandbox.run("ask", "follow me")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(local.requests.count == 1, "the first request went to the address keep resolved")
        #expect(far.connections == 0, "the followed request was refused before connecting")
        #expect(
            asked.stderr.contains("over plain http to box.test, which is not this machine (it resolves to 192.0.2.1)"),
            "\(asked)")
        #expect(try await sandbox.chat(try #require(asked.chatId))["draft"] as? String == "follow me")
    }
}
