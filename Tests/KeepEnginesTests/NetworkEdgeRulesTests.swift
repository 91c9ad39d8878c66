import Foundation
import KeepCore
import Testing

@testable import KeepEngines

/// The decision tables of the network edge, case by case: which redirects are followed,
/// where a key may go in clear, what a server address may hold, what hides the key.
@Suite("The network edge's rules")
struct NetworkEdgeRulesTests {
    static let base = URL(string: "https://api.example.test/v1/chat/completions")!
    static let plain = URL(string: "http://127.0.0.1:8080/v1/chat/completions")!

    enum Expected: Sendable, CustomTestStringConvertible {
        case follow(String), otherOrigin, downgrade, methodChange, noLocation, notARedirect
        var testDescription: String { "\(self)" }
    }

    static let redirectCases: [(URL, String, Int, String?, Expected)] = [
        (base, "POST", 307, "/v2/chat/completions", .follow("https://api.example.test/v2/chat/completions")),
        (base, "POST", 308, "https://API.example.test:443/v2", .follow("https://API.example.test:443/v2")),
        (base, "POST", 301, "/v2/chat/completions", .methodChange),
        (base, "POST", 302, "/v2/chat/completions", .methodChange),
        (base, "POST", 303, "/v2/chat/completions", .methodChange),
        (base, "GET", 301, "/v2/models", .follow("https://api.example.test/v2/models")),
        (base, "GET", 303, "/v2/models", .follow("https://api.example.test/v2/models")),
        (base, "POST", 307, "https://other.example.test/v1", .otherOrigin),
        (base, "POST", 308, "https://api.example.test:8443/v1", .otherOrigin),
        (base, "GET", 301, "https://evil.example.test/v1/models", .otherOrigin),
        (base, "POST", 307, "http://api.example.test/v1/chat/completions", .downgrade),
        (base, "GET", 308, "http://api.example.test/v1/models", .downgrade),
        (plain, "POST", 307, "https://127.0.0.1:8080/v1", .otherOrigin),
        (plain, "POST", 307, "http://127.0.0.1:8081/v1", .otherOrigin),
        (plain, "POST", 307, "http://localhost:8080/v1", .otherOrigin),
        (base, "POST", 302, nil, .noLocation),
        (base, "POST", 301, "ftp://api.example.test/", .noLocation),
        (base, "POST", 304, "/v2", .notARedirect),
        (base, "POST", 200, "/v2", .notARedirect),
    ]

    @Test(
        "a redirect is followed only to the same origin and only when the request survives it whole",
        arguments: redirectCases)
    func redirectDecisions(_ from: URL, _ method: String, _ status: Int, _ location: String?, _ expected: Expected) {
        let decision = RedirectPolicy.decide(from: from, method: method, status: status, location: location)
        switch (decision, expected) {
        case (.follow(let url)?, .follow(let target)): #expect(url.absoluteString == target)
        case (.refuse(.otherOrigin)?, .otherOrigin), (.refuse(.downgrade)?, .downgrade),
            (.refuse(.methodChange)?, .methodChange), (.refuse(.noLocation)?, .noLocation), (nil, .notARedirect):
            break
        default: Issue.record("\(status) \(method) to \(location ?? "nowhere"): \(String(describing: decision))")
        }
    }

    @Test("a refused redirect's line hides the key and the query, and its suggestion says which baseUrl to set")
    func redirectMessage() throws {
        let key = "sk-in-the-location"
        let decision = RedirectPolicy.decide(
            from: Self.base, method: "POST", status: 307,
            location: "https://other.example.test/\(key)/v1/chat/completions?token=abc")
        guard case .refuse(let refusal)? = decision else { throw RefusalMissing() }
        let line = refusal.message(
            server: "https://api.example.test/v1", suffix: "/chat/completions", hidingKey: APIKey(key))
        #expect(line.contains("to https://other.example.test/[your key]/v1/chat/completions;"), "\(line)")
        let base = refusal.suggestedBase(suffix: "/chat/completions", hidingKey: APIKey(key))
        #expect(base == "https://other.example.test/[your key]/v1", "\(line)")
        #expect(!line.contains("keep settings"), "the edge builds no command line: \(line)")
        #expect(!line.contains(key) && !line.contains("token=abc"))
        #expect(base?.contains("token=abc") == false)
    }

    struct RefusalMissing: Error {}

    /// A resolver of the test's own: these names go where the table says, any other does
    /// not resolve; numeric addresses go to themselves (as getaddrinfo answers them).
    static let names: [String: [String]] = [
        "localhost": ["127.0.0.1", "::1"], "localhost.": ["192.0.2.1"], "127.evil.example.test": ["192.0.2.7"],
        "gpu-box.lan": ["192.0.2.20"], "split.example.test": ["127.0.0.1", "192.0.2.8"],
        "six.example.test": ["::1"], "box.example.test": ["127.0.0.2"],
    ]

    @Sendable static func resolve(_ host: String) async -> ThisMachine.Resolution {
        let addresses = names[host] ?? (host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? [host] : [])
        guard !addresses.isEmpty else { return .unresolved(reason: "Name or service not known") }
        guard addresses.allSatisfy(ThisMachine.isLoopback(address:)) else { return .elsewhere(addresses: addresses) }
        return .thisMachine(address: addresses.first { !$0.contains(":") } ?? addresses[0])
    }

    static let cleartextCases: [(String, Bool, [String], CleartextRule.Verdict)] = [
        ("http://127.0.0.1:8080/v1", true, [], .thisMachine(address: "127.0.0.1")),
        ("http://127.200.3.4/v1", true, [], .thisMachine(address: "127.200.3.4")),
        ("http://localhost:11434/v1", true, [], .thisMachine(address: "127.0.0.1")),
        ("http://box.example.test/v1", true, [], .thisMachine(address: "127.0.0.2")),
        ("http://six.example.test/v1", true, [], .thisMachine(address: "::1")),
        ("https://api.example.test/v1", true, [], .fine),
        ("https://192.0.2.1/v1", true, [], .fine),
        ("http://192.0.2.1:8080/v1", false, [], .fine),
        ("http://localhost.:8080/v1", false, [], .fine),
        ("http://192.0.2.1:8080/v1", true, [], .refused(host: "192.0.2.1", detail: "")),
        ("http://localhost.:8080/v1", true, [], .refused(host: "localhost.", detail: "it resolves to 192.0.2.1")),
        ("http://LocalHost.:8080/v1", true, [], .refused(host: "localhost.", detail: "it resolves to 192.0.2.1")),
        (
            "http://127.evil.example.test/v1", true, [],
            .refused(host: "127.evil.example.test", detail: "it resolves to 192.0.2.7")
        ),
        (
            "http://split.example.test/v1", true, [],
            .refused(host: "split.example.test", detail: "it resolves to 127.0.0.1, 192.0.2.8")
        ),
        (
            "http://nowhere.example.test/v1", true, [],
            .refused(host: "nowhere.example.test", detail: "it does not resolve: Name or service not known")
        ),
        ("http://gpu-box.lan/v1", true, [], .refused(host: "gpu-box.lan", detail: "it resolves to 192.0.2.20")),
        ("http://128.0.0.1/v1", true, [], .refused(host: "128.0.0.1", detail: "")),
        ("http://gpu-box.lan/v1", true, ["gpu-box.lan"], .allowedByName(host: "gpu-box.lan")),
        (
            "http://other.lan/v1", true, ["gpu-box.lan"],
            .refused(host: "other.lan", detail: "it does not resolve: Name or service not known")
        ),
    ]

    @Test(
        "a key goes over plain http only to a host every address of which is loopback, or to a host the user named; keyless requests anywhere",
        arguments: cleartextCases)
    func cleartextVerdicts(
        _ url: String, _ sendsKey: Bool, _ allowed: [String], _ verdict: CleartextRule.Verdict
    ) async throws {
        let decided = await CleartextRule.verdict(
            for: try #require(URL(string: url)), sendsKey: sendsKey, allowedHosts: allowed, resolve: Self.resolve)
        #expect(decided == verdict)
    }

    @Test(
        "an address is loopback only in 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104; a name is never loopback by its spelling",
        arguments: [
            ("127.0.0.1", true), ("127.255.255.254", true), ("::1", true), ("::ffff:127.0.0.1", true),
            ("128.0.0.1", false), ("0.0.0.0", false), ("::", false), ("::2", false), ("::ffff:192.0.2.1", false),
            ("localhost", false), ("localhost.", false), ("127.evil.example.test", false), ("", false),
        ])
    func loopbackAddresses(_ address: String, _ loopback: Bool) {
        #expect(ThisMachine.isLoopback(address: address) == loopback)
    }

    @Test(
        "the system's resolver is asked for where a host goes: a numeric address goes to itself",
        arguments: [
            ("127.0.0.1", ThisMachine.Resolution.thisMachine(address: "127.0.0.1")),
            ("127.1", .thisMachine(address: "127.0.0.1")), ("::1", .thisMachine(address: "::1")),
            ("192.0.2.1", .elsewhere(addresses: ["192.0.2.1"])),
        ])
    func systemResolver(_ host: String, _ expected: ThisMachine.Resolution) async {
        #expect(await ThisMachine.resolve(host) == expected)
    }

    @Test("a request pinned to the address its host resolved to names the host in its Host header")
    func pinnedRequest() throws {
        let url = try #require(URL(string: "http://box.example.test:8080/v1/chat/completions"))
        let request = OutgoingRequest("POST", url, key: APIKey("sk-pinned")).sending(
            to: "127.0.0.2", userAgent: "keep/9.9.9")
        #expect(request.url?.absoluteString == "http://127.0.0.2:8080/v1/chat/completions")
        #expect(request.value(forHTTPHeaderField: "Host") == "box.example.test:8080")
        #expect(request.value(forHTTPHeaderField: "User-Agent") == "keep/9.9.9")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer sk-pinned")
        // Not pinned: the URL as it is, and no Host header of keep's own.
        let direct = OutgoingRequest("GET", url).sending(userAgent: "keep/9.9.9")
        #expect(direct.url == url && direct.value(forHTTPHeaderField: "Host") == nil)
        #expect(direct.value(forHTTPHeaderField: "Authorization") == nil)
    }

    static let badAddresses: [(String, String)] = [
        ("http://user:hunter2@example.test/v1", "user or password"),
        ("http://:hunter2@example.test/v1", "user or password"),
        ("http://example.test/v1?key=hunter2", "query or fragment"),
        ("http://example.test/v1#hunter2", "query or fragment"),
        ("http://example.test:0/v1", "port"), ("http://example.test:65536/v1", "port"),
        ("http://example.test:99999999999/v1", "port"), ("ftp://example.test/v1", "not an http or https URL"),
        ("http:///v1", "names no host"), ("not a url", "not a URL"), ("", "not a URL"),
        ("http://[::1]:1/v1", "IPv6 address in brackets, which the HTTP library keep uses on Linux cannot connect to"),
    ]

    @Test(
        "a server address breaking a rule is refused, naming the rule it breaks, never the password",
        arguments: badAddresses)
    func refusedAddresses(_ text: String, _ rule: String) throws {
        let problem = try #require(ServerURLRule.problem(in: text))
        #expect(problem.contains(rule), "\(problem)")
        #expect(!problem.contains("hunter2"))
        #expect(SettingValidator.httpURL.validate(.string(text)) == nil)
    }

    @Test(
        "a server address keeping every rule is accepted",
        arguments: ["http://127.0.0.1:8080/v1", "https://api.example.test/v1", "HTTP://Host:65535"])
    func goodAddresses(_ text: String) {
        #expect(ServerURLRule.problem(in: text) == nil)
        #expect(SettingValidator.httpURL.validate(.string(text)) == .string(text))
    }

    @Test("the key, and so its Bearer form, is hidden in server text; text without it is left as it is")
    func keyHidden() {
        let key = APIKey("sk-abc123")
        #expect(
            ServerText.hidingKey("got Bearer sk-abc123 and sk-abc123", key) == "got Bearer [your key] and [your key]")
        #expect(ServerText.hidingKey("nothing here", key) == "nothing here")
        #expect(ServerText.hidingKey("sk-abc123", nil) == "sk-abc123")
        #expect(APIKey("") == nil, "an empty key is no key")
    }

    @Test(
        "keyOverHttpHosts takes host names separated by commas, or nothing",
        arguments: [
            ("", ""), ("gpu-box.lan", "gpu-box.lan"), (" GPU-Box.lan , 192.168.1.20 ", "gpu-box.lan, 192.168.1.20"),
        ])
    func hostListAccepted(_ text: String, _ kept: String) {
        #expect(SettingValidator.hostList.validate(.string(text)) == .string(kept))
    }

    @Test(
        "keyOverHttpHosts refuses a scheme, a port, a path or an empty entry",
        arguments: ["http://gpu-box.lan", "gpu-box.lan:8080x", "gpu-box.lan/v1", "a,,b", "a b"])
    func hostListRefused(_ text: String) {
        #expect(SettingValidator.hostList.validate(.string(text)) == nil)
    }
}
