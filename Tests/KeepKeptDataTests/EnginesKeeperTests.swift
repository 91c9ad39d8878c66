import Foundation
import KeepConformance
import KeepPorts
import KeepSealed
import KeepTestSupport
import Testing

@testable import KeepKeptData

@Suite("The engines module's readings")
struct EnginesKeeperTests {
    let address = "http://127.0.0.1:8080/v1"

    @Test("a kept reading is shown at once with its age, marked as kept, without asking the server")
    func keptReadingShownWithItsAge() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        fixture.clock.advance(by: 3 * 3600 + 59)

        let later = try fixture.reopened()
        let kept = try await later.keeper.kept(server)
        let models = try #require(kept.models)
        #expect(models.value.ids == ["a", "b"])
        #expect(!models.isFresh)
        #expect(models.age(now: later.clock.now).description == "3 h ago")
        #expect(kept.health?.isFresh == false)
        #expect(fixture.server.requests.count == 1, "showing what is kept never asks the server")
    }

    @Test("a refresh keeps a fresh model list and a fresh health reading")
    func refreshKeepsFreshReadings() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        let readings = try await fixture.keeper.refresh(server, apiKey: nil)
        #expect(readings.models?.isFresh == true)
        #expect(readings.models?.value.ids == ["a", "b"])
        let health = try #require(readings.health)
        #expect(health.isFresh)
        #expect(
            health.value
                == ServerHealth(
                    reachable: true, latencyMilliseconds: 12, status: 200, says: "scripted-server/1.0", problem: nil))
        #expect(fixture.server.requests.map(\.url.absoluteString) == ["http://127.0.0.1:8080/v1/models"])
        #expect(try await fixture.keeper.kept(server).models?.value == readings.models?.value)
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let reply: ScriptedServer.Reply
        let apiKey: String?
        let reachable: Bool
        let problem: String
    }

    static let failures: [Failure] = [
        Failure(
            testDescription: "no answer", reply: .unreachable("the connection was refused"), apiKey: nil,
            reachable: false, problem: "the connection was refused"),
        Failure(
            testDescription: "not a model list", reply: .answer(status: 200, body: "<html>hello</html>"), apiKey: nil,
            reachable: true, problem: "not a model list"),
        Failure(
            testDescription: "a key refused", reply: .answer(status: 401, body: "{}"), apiKey: "sk-wrong",
            reachable: true, problem: "refused the key"),
        Failure(
            testDescription: "a key wanted", reply: .answer(status: 401, body: "{}"), apiKey: nil, reachable: true,
            problem: "none is set"),
        Failure(
            testDescription: "no /models", reply: .answer(status: 404, body: ""), apiKey: nil, reachable: true,
            problem: "HTTP 404"),
        Failure(
            testDescription: "a server error", reply: .answer(status: 503, body: "busy"), apiKey: nil,
            reachable: true, problem: "HTTP 503"),
    ]

    @Test(
        "a server that fails to give a model list gets a fresh health reading saying why, and the kept list stays, marked as kept",
        arguments: failures)
    func failedRefreshKeepsTheKeptList(_ failure: Failure) async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        fixture.clock.advance(by: 600)
        fixture.server.answer(failure.reply)

        let readings = try await fixture.keeper.refresh(server, apiKey: failure.apiKey)
        let health = try #require(readings.health)
        #expect(health.isFresh)
        #expect(health.value.reachable == failure.reachable)
        #expect(health.value.problem?.contains(failure.problem) == true, "\(health.value.problem ?? "no problem")")
        let models = try #require(readings.models)
        #expect(!models.isFresh)
        #expect(models.value.ids == ["a", "b"])
        #expect(models.age(now: fixture.clock.now).description == "10 min ago")
    }

    @Test("the key goes to the server as given; without one the request carries none")
    func theKeyIsPassedAsGiven() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        _ = try await fixture.keeper.refresh(server, apiKey: "sk-test-key")
        #expect(fixture.server.requests.map(\.apiKey) == [nil, "sk-test-key"])
    }

    @Test("choosing a model from a kept reading is refused with the reading's age; from a fresh one it is allowed")
    func actingOnAKeptReadingWaits() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        let fresh = try await fixture.keeper.refresh(server, apiKey: nil)
        #expect(try fixture.keeper.modelToUse("b", from: fresh) == "b")

        fixture.clock.advance(by: 2 * 86400)
        let kept = try await fixture.reopened().keeper.kept(server)
        #expect(kept.models?.value.ids.contains("b") == true, "the model is shown")
        let error = #expect(throws: KeptError.self) { try fixture.keeper.modelToUse("b", from: kept) }
        #expect(error?.code == .waitsForFreshReading)
        #expect(error?.description.contains("read 2 days ago") == true, "\(String(describing: error))")
    }

    @Test("choosing a model the server does not list, or from no list at all, is refused")
    func choosingAnUnlistedModelIsRefused() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        let none = try await fixture.keeper.kept(server)
        #expect(throws: KeptError.self) { try fixture.keeper.modelToUse("a", from: none) }
        let fresh = try await fixture.keeper.refresh(server, apiKey: nil)
        let error = #expect(throws: KeptError.self) { try fixture.keeper.modelToUse("c", from: fresh) }
        #expect(error?.code == .refused)
    }

    @Test("a model keeps the time it was first seen across readings; a model added is first seen when it appears")
    func firstSightingsCarryOver() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        let start = KeptInstant(fixture.clock.now)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        fixture.clock.advance(by: 60)
        fixture.server.answer(.models(["b", "c", "a", "c", ""]))
        let readings = try await fixture.keeper.refresh(server, apiKey: nil)
        let models = try #require(readings.models?.value)
        #expect(models.ids == ["b", "c", "a"], "in the server's order, each once, no empty name")
        #expect(models.models.map(\.firstSeen) == [start, KeptInstant(fixture.clock.now), start])
        #expect(models.since == start)
    }

    // MARK: - Readings this build cannot read

    @Test("a reading of a shape this build does not know is discarded, and the server can be read again")
    func unknownShapeIsDiscarded() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        try await fixture.store.keepReading(
            try fixture.record(ModelsReading.self, version: 2, payload: #"{"v2":true}"#, about: server))
        let kept = try await fixture.keeper.kept(server)
        #expect(kept.models == nil)
        #expect(try await fixture.store.newestReadings(about: try fixture.sealer.subjectHash(server.text)) == [])
        // Read again: kept in this build's shape.
        let fresh = try await fixture.keeper.refresh(server, apiKey: nil)
        #expect(fresh.models?.value.ids == ["a", "b"])
        #expect(try await fixture.reopened().keeper.kept(server).models?.value.ids == ["a", "b"])
    }

    @Test("a reading that does not open under the key, or of a kind this build does not keep, is discarded")
    func unopenableReadingIsDiscarded() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        let subject = try fixture.sealer.subjectHash(server.text)
        let foreign = try EnginesFixture()  // another key
        let binding = SealBinding(owner: EnginesKeeper.owner, kind: "models", shapeVersion: 1, subject: subject)
        try await fixture.store.keepReading(
            KeptRecord(
                kind: "models", subject: subject, shapeVersion: 1, at: KeptInstant(fixture.clock.now),
                sealed: try foreign.sealer.seal(Array(#"{"since":0,"models":[]}"#.utf8), for: binding)))
        try await fixture.store.keepReading(
            KeptRecord(
                kind: "props", subject: subject, shapeVersion: 1, at: KeptInstant(fixture.clock.now),
                sealed: try fixture.sealer.seal(
                    Array("{}".utf8),
                    for: SealBinding(owner: EnginesKeeper.owner, kind: "props", shapeVersion: 1, subject: subject))))
        #expect(try await fixture.store.newestReadings(about: subject).count == 2)
        let kept = try await fixture.keeper.kept(server)
        #expect(kept.models == nil && kept.health == nil)
        #expect(try await fixture.store.newestReadings(about: subject) == [])
    }

    // MARK: - Servers

    @Test("servers are listed in the order their first reading was kept, each once, in one spelling")
    func serversInOrder() async throws {
        let fixture = try EnginesFixture()
        for text in ["http://b.example.test/v1", "http://a.example.test/v1", "HTTP://B.example.test/v1/"] {
            _ = try await fixture.keeper.refresh(try ServerAddress(text), apiKey: nil)
        }
        #expect(
            try await fixture.reopened().keeper.servers().map(\.text) == [
                "http://b.example.test/v1", "http://a.example.test/v1",
            ])
    }

    @Test("forgetting a server deletes its readings and marker and removes it from the servers; another server's stay")
    func forgettingAServer() async throws {
        let fixture = try EnginesFixture()
        let (gone, stays) = (try ServerAddress("http://gone.example.test/v1"), try ServerAddress(address))
        for server in [gone, stays] { _ = try await fixture.keeper.refresh(server, apiKey: nil) }
        try await fixture.keeper.looked(at: try await fixture.keeper.whatIsNew())

        #expect(try await fixture.keeper.forget(try ServerAddress("http://GONE.example.test/v1/")) == 3)
        let after = try fixture.reopened().keeper
        #expect(try await after.servers() == [stays])
        let forgotten = try await after.kept(gone)
        #expect(forgotten.models == nil && forgotten.health == nil)
        #expect(
            try await fixture.store.marker(ModelMarker.kind, about: try fixture.sealer.subjectHash(gone.text)) == nil)
        #expect(try await after.kept(stays).models?.value.ids == ["a", "b"])
        #expect(
            try await fixture.store.marker(ModelMarker.kind, about: try fixture.sealer.subjectHash(stays.text)) != nil)
        #expect(try await after.forget(gone) == 0, "forgetting it again deletes nothing")
    }

    // MARK: - Addresses and ages

    @Test(
        "spellings of one server are one address",
        arguments: [
            ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
            ("  HTTP://LocalHost:8080/v1/ ", "http://localhost:8080/v1"),
            ("https://api.example.test/v1//", "https://api.example.test/v1"),
            ("https://api.example.test", "https://api.example.test"),
        ])
    func addressSpellings(_ text: String, _ spelled: String) throws {
        #expect(try ServerAddress(text).text == spelled)
    }

    @Test(
        "what is not a server's address is refused, saying why, without echoing a credential",
        arguments: [
            ("", "is not a URL"), ("not a url", "is not a URL"), ("ftp://example.test/v1", "not an http"),
            ("http:///v1", "names no host"), ("http://user:hunter2@example.test/v1", "keychain"),
            ("http://example.test/v1?key=abc", "query"),
        ])
    func badAddressesAreRefused(_ text: String, _ why: String) {
        let error = #expect(throws: KeptError.self) { try ServerAddress(text) }
        #expect(error?.code == .refused)
        #expect(error?.description.contains(why) == true, "\(String(describing: error))")
        #expect(error?.description.contains("hunter2") == false)
    }

    static let ages: [(seconds: Double, said: String)] = [
        (0, "just now"), (-30, "just now"), (59.9, "59 s ago"), (60, "1 min ago"), (3599, "59 min ago"),
        (3600, "1 h ago"), (47 * 3600 + 3599, "47 h ago"), (48 * 3600, "2 days ago"), (400 * 86400, "400 days ago"),
    ]

    @Test("a reading's age is said in the largest whole unit that fits", arguments: ages)
    func readingAges(_ seconds: Double, _ said: String) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ReadingAge(readAt: now.addingTimeInterval(-seconds), now: now).description == said)
    }
}
