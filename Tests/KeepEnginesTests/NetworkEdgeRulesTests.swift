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
        let line = refusal.message(server: "https://api.example.test/v1", suffix: "/chat/completions", hidingKey: key)
        #expect(line.contains("to https://other.example.test/[your key]/v1/chat/completions;"), "\(line)")
        let base = refusal.suggestedBase(suffix: "/chat/completions", hidingKey: key)
        #expect(base == "https://other.example.test/[your key]/v1", "\(line)")
        #expect(!line.contains("keep settings"), "the edge builds no command line: \(line)")
        #expect(!line.contains(key) && !line.contains("token=abc"))
        #expect(base?.contains("token=abc") == false)
    }

    struct RefusalMissing: Error {}

    static let cleartextCases: [(String, Bool, [String], CleartextRule.Verdict)] = [
        ("http://127.0.0.1:8080/v1", true, [], .fine),
        ("http://127.200.3.4/v1", true, [], .fine),
        ("http://localhost:11434/v1", true, [], .fine),
        ("http://[::1]:8080/v1", true, [], .fine),
        ("https://api.example.test/v1", true, [], .fine),
        ("https://192.0.2.1/v1", true, [], .fine),
        ("http://192.0.2.1:8080/v1", false, [], .fine),
        ("http://192.0.2.1:8080/v1", true, [], .refused(host: "192.0.2.1")),
        ("http://gpu-box.lan/v1", true, [], .refused(host: "gpu-box.lan")),
        ("http://128.0.0.1/v1", true, [], .refused(host: "128.0.0.1")),
        ("http://localhost.example.test/v1", true, [], .refused(host: "localhost.example.test")),
        ("http://[::2]/v1", true, [], .refused(host: "::2")),
        ("http://gpu-box.lan/v1", true, ["gpu-box.lan"], .allowedByName(host: "gpu-box.lan")),
        ("http://other.lan/v1", true, ["gpu-box.lan"], .refused(host: "other.lan")),
    ]

    @Test(
        "a key goes over plain http only to loopback, or to a host the user named; keyless requests anywhere",
        arguments: cleartextCases)
    func cleartextVerdicts(
        _ url: String, _ sendsKey: Bool, _ allowed: [String], _ verdict: CleartextRule.Verdict
    )
        throws
    {
        #expect(
            CleartextRule.verdict(for: try #require(URL(string: url)), sendsKey: sendsKey, allowedHosts: allowed)
                == verdict)
    }

    static let badAddresses: [(String, String)] = [
        ("http://user:hunter2@example.test/v1", "user or password"),
        ("http://:hunter2@example.test/v1", "user or password"),
        ("http://example.test/v1?key=hunter2", "query or fragment"),
        ("http://example.test/v1#hunter2", "query or fragment"),
        ("http://example.test:0/v1", "port"), ("http://example.test:65536/v1", "port"),
        ("http://example.test:99999999999/v1", "port"), ("ftp://example.test/v1", "not an http or https URL"),
        ("http:///v1", "names no host"), ("not a url", "not a URL"), ("", "not a URL"),
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
        arguments: [
            "http://127.0.0.1:8080/v1", "https://api.example.test/v1", "http://[::1]:1/v1", "HTTP://Host:65535",
        ])
    func goodAddresses(_ text: String) {
        #expect(ServerURLRule.problem(in: text) == nil)
        #expect(SettingValidator.httpURL.validate(.string(text)) == .string(text))
    }

    @Test("the key, and so its Bearer form, is hidden in server text; text without it is left as it is")
    func keyHidden() {
        let key = "sk-abc123"
        #expect(
            ServerText.hidingKey("got Bearer sk-abc123 and sk-abc123", key) == "got Bearer [your key] and [your key]")
        #expect(ServerText.hidingKey("nothing here", key) == "nothing here")
        #expect(ServerText.hidingKey("sk-abc123", nil) == "sk-abc123")
        #expect(ServerText.hidingKey("sk-abc123", "") == "sk-abc123")
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
