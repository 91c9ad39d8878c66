import Foundation
import KeepConformance
import KeepPorts
import KeepSQLite
import KeepSealed
import Testing

@testable import KeepKeptData

@Suite("The kept-data store contracts")
struct KeptStoreContractTests {
    @Test("the engines memory store honours the engines store contract", arguments: EnginesStoreContract.cases)
    func enginesMemoryStore(_ rule: ContractCase<any EnginesStorePort>) async throws {
        try await rule.check { EnginesMemoryStore() }
    }

    @Test("the engines SQLite store honours the engines store contract", arguments: EnginesStoreContract.cases)
    func enginesSQLiteStore(_ rule: ContractCase<any EnginesStorePort>) async throws {
        let directory = try TemporaryDirectory()
        try await rule.check {
            try await EnginesSQLiteStore.open(
                try SQLiteDatabase(path: directory.appending("kept-\(UUID().uuidString).sqlite")))
        }
    }

    @Test("the chats memory store honours the chats store contract", arguments: ChatsStoreContract.cases)
    func chatsMemoryStore(_ rule: ContractCase<any ChatsStorePort>) async throws {
        try await rule.check { ChatsMemoryStore() }
    }

    @Test("the chats SQLite store honours the chats store contract", arguments: ChatsStoreContract.cases)
    func chatsSQLiteStore(_ rule: ContractCase<any ChatsStorePort>) async throws {
        let directory = try TemporaryDirectory()
        try await rule.check {
            try await ChatsSQLiteStore.open(
                try SQLiteDatabase(path: directory.appending("kept-\(UUID().uuidString).sqlite")))
        }
    }

    @Test(
        "a broken engines store fails the engines store contract by the name of the case it breaks",
        arguments: BrokenEnginesStore.Flaw.allCases)
    func brokenEnginesStoreFails(_ flaw: BrokenEnginesStore.Flaw) async throws {
        let broken = try #require(EnginesStoreContract.cases.first { $0.name == flaw.brokenCase })
        await #expect(throws: ContractViolation.self) { try await broken.check { BrokenEnginesStore(flaw) } }
        do {
            try await broken.check { BrokenEnginesStore(flaw) }
        } catch {
            #expect(error.caseName == flaw.brokenCase)
        }
        // The flaw is in that rule only: the rest of the contract still holds.
        for rule in EnginesStoreContract.cases where rule.name != flaw.brokenCase {
            await #expect(throws: Never.self, "\(rule.name)") { try await rule.check { BrokenEnginesStore(flaw) } }
        }
    }

    @Test("the SQLite engines store keeps its rows across opens, a megabyte payload included")
    func sqliteStoreKeepsAcrossOpens() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let reading = try KeptSamples.record("models", about: try KeptSamples.subject(3), at: 42)
        let large = KeptRecord(
            kind: "health", subject: try KeptSamples.subject(3), shapeVersion: 1,
            at: KeptInstant(millisecondsSince1970: 43),
            sealed: try SealedPayload(bytes: [1] + Array(repeating: 7, count: 1_000_000)))
        do {
            let store = try await EnginesSQLiteStore.open(try SQLiteDatabase(path: path))
            try await store.keepReading(reading)
            try await store.keepReading(large)
        }
        let reopened = try await EnginesSQLiteStore.open(try SQLiteDatabase(path: path))
        #expect(try await reopened.newestReadings(about: try KeptSamples.subject(3)) == [large, reading])
    }
}
