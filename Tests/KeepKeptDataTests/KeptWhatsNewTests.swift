import Foundation
import KeepSealed
import Testing

@testable import KeepKeptData

@Suite("What is new since you looked")
struct KeptWhatsNewTests {
    let address = "http://127.0.0.1:8080/v1"

    @Test("the first look lists every model; after it, only models first seen since the user looked")
    func newSinceYouLooked() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)

        let first = try await fixture.keeper.whatIsNew()
        #expect(first.map(\.items) == [["a", "b"]])
        #expect(first.first?.isFirstLook == true)
        #expect(first.first?.about == server.text)
        try await fixture.keeper.looked(at: first)
        #expect(try await fixture.keeper.whatIsNew() == [], "nothing new once looked")

        fixture.clock.advance(by: 3600)
        fixture.server.answer(.models(["a", "b", "c"]))
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        let second = try await fixture.reopened().keeper.whatIsNew()
        #expect(second.map(\.items) == [["c"]])
        #expect(second.first?.isFirstLook == false)
        try await fixture.keeper.looked(at: second)
        #expect(try await fixture.keeper.whatIsNew() == [])
    }

    @Test("what is new is answered from kept readings, never from the server")
    func answeredFromKeptReadings() async throws {
        let fixture = try EnginesFixture()
        _ = try await fixture.keeper.refresh(try ServerAddress(address), apiKey: nil)
        fixture.server.answer(.models(["a", "b", "z"]))
        #expect(try await fixture.keeper.whatIsNew().map(\.items) == [["a", "b"]])
        #expect(fixture.server.requests.count == 1)
    }

    @Test("looking at older news never moves a marker back")
    func markersNeverMoveBack() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        let older = try await fixture.keeper.whatIsNew()
        fixture.clock.advance(by: 60)
        fixture.server.answer(.models(["a", "b", "c"]))
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        try await fixture.keeper.looked(at: try await fixture.keeper.whatIsNew())
        try await fixture.keeper.looked(at: older)
        #expect(try await fixture.keeper.whatIsNew() == [])
    }

    @Test("when the readings from before the last look were pruned, there is nothing to compare with: a first look")
    func prunedHistoryIsAFirstLook() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        try await fixture.keeper.looked(at: try await fixture.keeper.whatIsNew())
        fixture.clock.advance(by: 31 * 86400)
        #expect(try await fixture.keeper.launch().readingsPruned == 2)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        let news = try await fixture.keeper.whatIsNew()
        #expect(news.map(\.items) == [["a", "b"]])
        #expect(news.first?.isFirstLook == true)
    }

    @Test("each server's news is its own, and news of another owner is left to it")
    func newsPerServer() async throws {
        let fixture = try EnginesFixture()
        let (one, two) = (try ServerAddress(address), try ServerAddress("http://other.example.test/v1"))
        _ = try await fixture.keeper.refresh(one, apiKey: nil)
        fixture.server.answer(.models(["x"]))
        _ = try await fixture.keeper.refresh(two, apiKey: nil)
        let news = try await fixture.keeper.whatIsNew()
        #expect(news.map(\.about) == [one.text, two.text])
        #expect(news.map(\.items) == [["a", "b"], ["x"]])
        let foreign = news.map {
            WhatIsNew(
                owner: "chats", about: $0.about, kind: $0.kind, items: $0.items, readAt: $0.readAt,
                isFirstLook: $0.isFirstLook, newest: $0.newest)
        }
        try await fixture.keeper.looked(at: foreign)
        #expect(try await fixture.keeper.whatIsNew().count == 2, "another owner's news marks nothing here")
        try await fixture.keeper.looked(at: [news[0]])
        #expect(try await fixture.keeper.whatIsNew().map(\.about) == [two.text])
    }

    @Test("a marker this build cannot read counts as no look, and the next look replaces it")
    func unreadableMarker() async throws {
        let fixture = try EnginesFixture()
        let server = try ServerAddress(address)
        _ = try await fixture.keeper.refresh(server, apiKey: nil)
        try await fixture.store.keepMarker(
            try fixture.record(ModelMarker.self, version: 5, payload: "{}", about: server))
        let news = try await fixture.keeper.whatIsNew()
        #expect(news.first?.isFirstLook == true)
        try await fixture.keeper.looked(at: news)
        #expect(try await fixture.keeper.whatIsNew() == [])
    }
}
