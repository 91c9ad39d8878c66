import Foundation
import KeepCore
import KeepEngines
import KeepTestSupport
import Synchronization
import Testing

@testable import KeepKeptData

/// What the engines module learns of a model's context window, and when it asks again.
@Suite("Context windows learned from a server's model list")
struct ContextWindowsTests {
    let address = "https://api.example.com/v1"
    let edge = EdgePolicy(userAgent: "keep/test")

    private func query(_ wire: ServerProtocol = .openai, model: String = "m") throws -> ContextWindowQuery {
        try #require(ContextWindowQuery(wire: wire, server: address, model: model))
    }

    /// How many times the key was read, for a test to count.
    private final class KeyReads: Sendable {
        let count = Mutex(0)
        func read() -> APIKey? {
            count.withLock { $0 += 1 }
            return APIKey("sk-window-test")
        }
    }

    private static let listing = #"{"data":[{"id":"m","context_length":8192},{"id":"n"}]}"#

    @Test("a window read from the list is kept and answered again without asking, its key read only to ask")
    func keptWithoutAsking() async throws {
        let fixture = try EnginesFixture(server: ScriptedServer(.answer(status: 200, body: Self.listing)))
        let keys = KeyReads()
        let first = await fixture.keeper.window(try query(), authority: nil, edge: edge) { keys.read() }
        #expect(first?.tokens == 8192)
        #expect(fixture.server.requests.map(\.url.absoluteString) == ["https://api.example.com/v1/models"])
        #expect(fixture.server.requests.first?.apiKey == "sk-window-test")

        fixture.clock.advance(by: 6 * 86_400)
        let later = try fixture.reopened()
        let again = await later.keeper.window(try query(), authority: nil, edge: edge) { keys.read() }
        #expect(again == first, "a later launch answers from what is kept")
        #expect(fixture.server.requests.count == 1 && keys.count.withLock { $0 } == 1, "nothing asked, no key read")
        #expect(await later.keeper.keptWindow(of: "m", at: try ServerAddress(address)) == first)
    }

    @Test("a window older than its age is asked again, and what the server says now replaces it")
    func askedAgainWhenOld() async throws {
        let fixture = try EnginesFixture(server: ScriptedServer(.answer(status: 200, body: Self.listing)))
        _ = await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil }
        fixture.clock.advance(by: ContextWindows.answeredAge + 1)
        fixture.server.answer(.answer(status: 200, body: #"{"data":[{"id":"m","context_length":4096}]}"#))
        let again = await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil }
        #expect(again?.tokens == 4096)
        #expect(fixture.server.requests.count == 2)
    }

    @Test("a server that gives no window is kept as giving none: no budget, and not asked on every turn")
    func noWindowKept() async throws {
        let fixture = try EnginesFixture(server: ScriptedServer(.models(["m"])))
        let first = await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil }
        #expect(first != nil && first?.tokens == nil)
        let again = await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil }
        #expect(again?.tokens == nil)
        #expect(fixture.server.requests.count == 1)
    }

    @Test(
        "a server that does not answer means no window, never an error, and is asked again after an hour",
        arguments: [ScriptedServer.Reply.unreachable("connection refused"), .answer(status: 503, body: "{}")])
    func unansweredAskedAgainLater(reply: ScriptedServer.Reply) async throws {
        let fixture = try EnginesFixture(server: ScriptedServer(reply))
        #expect(await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil } == nil)
        #expect(await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil } == nil)
        #expect(fixture.server.requests.count == 1, "not asked on every turn")
        fixture.clock.advance(by: ContextWindows.unansweredAge + 1)
        fixture.server.answer(.answer(status: 200, body: Self.listing))
        #expect(await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil }?.tokens == 8192)
    }

    @Test("a key that cannot be read asks nothing and keeps nothing")
    func unreadableKeyAsksNothing() async throws {
        let fixture = try EnginesFixture(server: ScriptedServer(.answer(status: 200, body: Self.listing)))
        let window = await fixture.keeper.window(try query(), authority: nil, edge: edge) {
            () async throws(EngineError) -> APIKey? in throw EngineError(.key, "the keyring is locked")
        }
        #expect(window == nil && fixture.server.requests.isEmpty)
        #expect(await fixture.keeper.keptWindow(of: "m", at: try ServerAddress(address)) == nil)
    }

    @Test("each model's window is its own, and each protocol is asked with its own key header and authority")
    func perModelAndProtocol() async throws {
        let fixture = try EnginesFixture(
            server: ScriptedServer(.answer(status: 200, body: #"{"id":"claude-x","max_input_tokens":200000}"#)))
        let claude = await fixture.keeper.window(
            try query(.anthropic, model: "claude-x"), authority: "/etc/lab-ca.pem", edge: edge
        ) { nil }
        #expect(claude?.tokens == 200_000)
        let request = try #require(fixture.server.requests.last)
        #expect(request.url.absoluteString == "https://api.example.com/v1/models/claude-x")
        #expect(request.wire == .anthropic && request.authority == "/etc/lab-ca.pem")
        // Another model at the same server is asked for its own.
        fixture.server.answer(.answer(status: 200, body: #"{"id":"claude-y"}"#))
        let other = await fixture.keeper.window(try query(.anthropic, model: "claude-y"), authority: nil, edge: edge) {
            nil
        }
        #expect(other?.tokens == nil && fixture.server.requests.count == 2)
        #expect(await fixture.keeper.keptWindow(of: "claude-x", at: try ServerAddress(address))?.tokens == 200_000)
    }

    @Test("forgetting a server deletes the windows learned from it")
    func forgottenWithTheServer() async throws {
        let fixture = try EnginesFixture(server: ScriptedServer(.answer(status: 200, body: Self.listing)))
        _ = await fixture.keeper.window(try query(), authority: nil, edge: edge) { nil }
        let server = try ServerAddress(address)
        #expect(try await fixture.keeper.servers() == [server], "a server something is kept about is listed")
        #expect(try await fixture.keeper.forget(server) > 0)
        #expect(await fixture.keeper.keptWindow(of: "m", at: server) == nil)
    }
}
