import Foundation
import KeepCore
import KeepPorts
import Testing

/// The servers file: entries checked field by field, refused ones kept as written, and the
/// one-time carry-over of the old server settings.
@Suite("The servers file")
struct ProfilesTests {
    private let carried = ServerProfile(
        name: "default", url: "http://127.0.0.1:8080/v1", key: SecretRef(.openai, account: "work"), model: "qwen3")

    @Test("a server entry that breaks a rule is not used, is named with why, and stays in the file as written")
    func refusedEntryKept() throws {
        var profiles = try Profiles(
            text: #"{"servers":{"bad":{"url":"ftp://x"},"good":{"url":"https://api.example.com/v1","extra":1}}}"#)
        #expect(profiles.servers.map(\.name) == ["good"], "the usable one is used")
        #expect(profiles.refusals.map(\.entry) == ["servers.bad"])
        profiles.setAlias("fast", "good/m")
        let text = try profiles.text()
        #expect(text.contains("\"ftp://x\""), "the refused entry is written back as it was")
        #expect(text.contains("\"extra\" : 1"), "an unknown field stays")
    }

    @Test("a server's protocol, key and model default from its protocol; what it gives is kept")
    func defaults() throws {
        let profiles = try Profiles(
            text: #"{"servers":{"a":{"url":"https://a.example/v1","protocol":"gemini"},"#
                + #""b":{"url":"https://b.example/v1","key":"openrouter/team","model":"m","contextTokens":4096}}}"#)
        let a = try #require(profiles.server("a"))
        #expect(a.wire == .gemini && a.key == SecretRef(.google) && a.model == "default")
        let b = try #require(profiles.server("b"))
        #expect(b.key == SecretRef(.openrouter, account: "team") && b.model == "m" && b.contextTokens == 4096)
    }

    @Test(
        "a field of the wrong kind refuses its entry",
        arguments: [
            #"{"url":"https://a.example/v1","protocol":"soap"}"#, #"{"url":"https://a.example/v1","key":"vault"}"#,
            #"{"url":"https://a.example/v1","model":""}"#, #"{"url":"https://a.example/v1","contextTokens":1.5}"#,
            #"{"url":"https://a.example/v1","ca":"relative.pem"}"#, #"{"url":"https://user:pw@a.example/v1"}"#,
        ])
    func wrongField(entry: String) throws {
        let profiles = try Profiles(text: #"{"servers":{"a":\#(entry)}}"#)
        #expect(profiles.server("a") == nil)
        #expect(profiles.refusals.count == 1)
        #expect(!profiles.refusals.description.contains("pw"), "a refusal never quotes a password")
    }

    @Test("a servers file that is not a JSON object is never written over")
    func unreadableNotOverwritten() async throws {
        let storage = MemoryStorage()
        try await storage.write(Profiles.key, "{ not json")
        let store = ProfilesStore(storage: storage)
        await #expect(throws: ProfilesError.self) { try await store.load() }
        await #expect(throws: ProfilesError.self) {
            _ = try await store.migrate(carrying: carried, finished: "2026-12-01T00:00:00.000Z")
        }
        #expect(try await storage.read(Profiles.key) == "{ not json")
        #expect(try await storage.read(ProfilesStore.migrationMarker) == nil, "a failed carry-over writes no marker")
    }

    @Test("the carry-over runs once, writes its marker last, and is tried again after a failure")
    func carryOverOnce() async throws {
        let storage = MemoryStorage()
        try await storage.write(Profiles.key, "[]")
        let store = ProfilesStore(storage: storage)
        await #expect(throws: ProfilesError.self) { _ = try await store.migrate(carrying: carried, finished: "t") }
        try await storage.remove(Profiles.key)
        #expect(try await store.migrate(carrying: carried, finished: "t") == true, "tried again, and done")
        #expect(try await store.load().server("default") == carried)
        #expect(try await store.load().defaultServer == "default")
        #expect(try await storage.read(ProfilesStore.migrationMarker) != nil)
        // Once done, never again: a server removed later is not brought back.
        var profiles = try await store.load()
        profiles.useServer("other")
        _ = profiles.removeServer("default")
        try await store.save(profiles)
        #expect(try await store.migrate(carrying: carried, finished: "t") == false)
        #expect(try await store.load().server("default") == nil)
    }

    @Test("the carry-over never overwrites a server the file already has")
    func carryOverNeverOverwrites() async throws {
        let storage = MemoryStorage()
        try await storage.write(Profiles.key, #"{"servers":{"default":{"url":"https://mine.example/v1"}}}"#)
        let store = ProfilesStore(storage: storage)
        _ = try await store.migrate(carrying: carried, finished: "t")
        #expect(try await store.load().server("default")?.url == "https://mine.example/v1")
    }

    @Test("a server names the slot of its key, never a key")
    func noKeyInFile() throws {
        var profiles = Profiles()
        profiles.set(carried)
        let text = try profiles.text()
        #expect(text.contains("\"key\" : \"openai/work\""))
        #expect(!text.contains("sk-"))
    }

    @Test("an alias stands for SERVER/MODEL; a name with a slash or a capital is refused")
    func aliasesAndNames() throws {
        #expect(Profiles.aliasTargetProblem("local/qwen3") == nil)
        #expect(Profiles.aliasTargetProblem("qwen3") != nil)
        #expect(Profiles.nameProblem("Local") != nil)
        #expect(Profiles.nameProblem("a/b") != nil)
        #expect(Profiles.nameProblem("local-1.b_c") == nil)
    }
}
