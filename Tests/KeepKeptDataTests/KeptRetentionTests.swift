import Foundation
import KeepConformance
import KeepSQLite
import KeepSealed
import Testing

@testable import KeepKeptData

@Suite("How long readings are kept")
struct KeptRetentionTests {
    let server = "http://127.0.0.1:8080/v1"

    /// A fixture with one reading of each kind kept now.
    private func fixtureWithReadings(
        _ store: any EnginesStorePort = EnginesMemoryStore()
    ) async throws
        -> EnginesFixture
    {
        let fixture = try EnginesFixture(store: store)
        _ = try await fixture.keeper.refresh(try ServerAddress(server), apiKey: nil)
        return fixture
    }

    @Test("readings are kept 30 days unless the user chose otherwise")
    func thirtyDaysByDefault() async throws {
        #expect(try await EnginesFixture().keeper.retention() == .standard)
        #expect(Retention.standard.days == 30)
    }

    @Test("readings older than the retention are deleted at launch", arguments: [29.9, 30.1])
    func prunedAtLaunch(_ days: Double) async throws {
        let fixture = try await fixtureWithReadings()
        fixture.clock.advance(by: days * 86400)
        let report = try await fixture.reopened().keeper.launch()
        let kept = try await fixture.keeper.kept(try ServerAddress(server))
        if days > 30 {
            #expect(report.readingsPruned == 2)
            #expect(kept.models == nil && kept.health == nil)
        } else {
            #expect(report.readingsPruned == 0)
            #expect(kept.models != nil && kept.health != nil, "a reading younger than the retention stays")
        }
        #expect(report.problems == [])
    }

    @Test("changing the retention deletes the readings it makes too old at once")
    func prunedWhenChanged() async throws {
        let fixture = try await fixtureWithReadings()
        fixture.clock.advance(by: 10 * 86400)
        #expect(try await fixture.keeper.setRetention(try Retention(days: 11)) == 0)
        #expect(try await fixture.keeper.kept(try ServerAddress(server)).models != nil)
        #expect(try await fixture.keeper.setRetention(try Retention(days: 9)) == 2)
        #expect(try await fixture.keeper.kept(try ServerAddress(server)).models == nil)
        #expect(try await fixture.reopened().keeper.retention() == (try Retention(days: 9)))
    }

    @Test("until the server is forgotten, readings are kept however old")
    func untilForgotten() async throws {
        let fixture = try await fixtureWithReadings()
        try await fixture.keeper.setRetention(.untilForgotten)
        fixture.clock.advance(by: 1000 * 86400)
        let report = try await fixture.reopened().keeper.launch()
        #expect(report.readingsPruned == 0)
        #expect(try await fixture.keeper.kept(try ServerAddress(server)).models?.value.ids == ["a", "b"])
        #expect(try await fixture.keeper.retention() == .untilForgotten)
    }

    @Test("a retention of 1 to 365 days, or forever, is accepted", arguments: ["1", "30", "365", " 7 ", "forever"])
    func retentionsAccepted(_ text: String) async throws {
        let retention = try Retention(parsing: text)
        let fixture = try EnginesFixture()
        try await fixture.keeper.setRetention(retention)
        #expect(try await fixture.keeper.retention() == retention)
    }

    @Test(
        "a retention outside 1 to 365 days is refused, and the kept one stays",
        arguments: ["0", "366", "-1", "thirty", "", "1.5"])
    func retentionsRefused(_ text: String) async throws {
        let fixture = try EnginesFixture()
        try await fixture.keeper.setRetention(try Retention(days: 12))
        let error = #expect(throws: KeptError.self) { try Retention(parsing: text) }
        #expect(error?.code == .refused)
        #expect(try await fixture.keeper.retention() == (try Retention(days: 12)))
    }

    @Test("a retention preference this build cannot read is left as it is, and nothing is pruned at launch")
    func unreadableRetentionIsLeft() async throws {
        let fixture = try await fixtureWithReadings()
        let newer = try fixture.record(RetentionPreference.self, version: 3, payload: #"{"hours":1}"#, about: nil)
        try await fixture.store.keepPreference(newer)
        fixture.clock.advance(by: 400 * 86400)

        let report = try await fixture.keeper.launch()
        #expect(report.readingsPruned == 0)
        #expect(report.problems.map(\.code) == [.unreadable])
        #expect(report.problems.first?.description.contains("shape version 3 of retention") == true)
        #expect(try await fixture.store.preference(RetentionPreference.kind, about: nil) == newer)
        #expect(try await fixture.keeper.kept(try ServerAddress(server)).models != nil)
        await #expect(throws: KeptError.self) { try await fixture.keeper.retention() }
    }

    @Test(
        "a retention kept in shape 1 is rewritten in shape 2 at launch, meaning the same",
        arguments: [
            (#"{"days":0}"#, Retention.untilForgotten), (#"{"days":7}"#, try? Retention(days: 7)),
        ])
    func retentionMigratesAtLaunch(_ payload: String, _ meaning: Retention?) async throws {
        let meaning = try #require(meaning)
        let directory = try TemporaryDirectory()
        let store = try await EnginesSQLiteStore.open(try SQLiteDatabase(path: directory.appending("kept.sqlite")))
        let fixture = try await fixtureWithReadings(store)
        let setAt = fixture.clock.now.addingTimeInterval(-86400)
        try await store.keepPreference(
            try fixture.record(RetentionPreference.self, version: 1, payload: payload, about: nil, at: setAt))

        fixture.clock.advance(by: 8 * 86400)
        let report = try await fixture.reopened().keeper.launch()
        #expect(report.preferencesUpgraded == ["retention"])
        #expect(report.problems == [])
        let record = try #require(try await store.preference(RetentionPreference.kind, about: nil))
        #expect(record.shapeVersion == 2)
        #expect(record.at == KeptInstant(setAt), "the time the user chose it is kept")
        #expect(try await fixture.keeper.retention() == meaning)
        // Pruned by the migrated choice: 8 days is past 7, and never past "until forgotten".
        #expect(report.readingsPruned == (meaning == .untilForgotten ? 0 : 2))
        // A second launch has nothing to rewrite.
        #expect(try await fixture.reopened().keeper.launch().preferencesUpgraded == [])
    }
}
