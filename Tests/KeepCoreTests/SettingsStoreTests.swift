import Foundation
import KeepConformance
import KeepPorts
import Testing

@testable import KeepCore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("How settings resolve")
struct SettingsStoreTests {
    private let file = SettingsStore.key

    @Test("an empty text is stored, but never outranks the caller's default", arguments: StoreKind.allCases)
    func anEmptyTextNeverOutranks(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let settings = makeSettings(try fixture.open())
        try await settings.load()
        try await settings.set("engineId", .string(""))

        #expect(settings.get("engineId") == .string(""))
        #expect(!settings.isSet("engineId"))
        #expect(settings.chosenStringOr("engineId", "remote") == "remote")
        #expect(settings.value("engineId") == .string("echo"))
        #expect(try await fixture.open().read(file)?.contains(#""engineId" : """#) == true)

        // The pair: a real choice does outrank the caller, in the same run.
        try await settings.set("engineId", .string("remote"))
        #expect(settings.isSet("engineId"))
        #expect(settings.chosenStringOr("engineId", "echo") == "remote")
    }

    @Test("isSet is true for a setting changed at run time, not only for one loaded at boot")
    func isSetAfterARunTimeChange() async throws {
        let settings = makeSettings(MemoryStorage())
        try await settings.load()
        #expect(!settings.isSet("baseUrl"))
        #expect(settings.chosenStringOr("baseUrl", "http://caller:1") == "http://caller:1")

        try await settings.set("baseUrl", .string("http://10.0.0.7:9000"))
        #expect(settings.isSet("baseUrl"))
        #expect(settings.chosenStringOr("baseUrl", "http://caller:1") == "http://10.0.0.7:9000")
    }

    @Test(
        "a refused write leaves isSet false and writes nothing",
        arguments: [
            ("someNumberSetting", SettingValue.string("abc")), ("someNumberSetting", .number(2.5)),
            ("engineId", .string("warp")), ("baseUrl", .string("file:///etc/passwd")), ("streaming", .number(1)),
            ("someNumberSetting", .number(.infinity)), ("someNumberSetting", .number(.nan)),
        ])
    func aRefusedWriteLeavesIsSetFalse(key: String, value: SettingValue) async throws {
        let storage = MemoryStorage()
        let settings = makeSettings(storage)
        try await settings.load()
        do {
            try await settings.set(key, value)
            Issue.record("\(value) was accepted for \(key)")
        } catch {
            guard error.code == .refused, let refusedKey = error.key else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(refusedKey == key)
        }
        #expect(!settings.isSet(key))
        #expect(settings.get(key) == nil)
        #expect(try await storage.read(file) == nil)
    }

    @Test("an unknown setting is refused by name")
    func anUnknownSettingIsRefused() async throws {
        let settings = makeSettings(MemoryStorage())
        try await settings.load()
        await #expect(throws: SettingsError.unknownKey("enginId")) {
            try await settings.set("enginId", .string("echo"))
        }
        await #expect(throws: SettingsError.unknownKey("enginId")) { try await settings.unset("enginId") }
        #expect(settings.value("enginId") == nil)
    }

    @Test(
        "a refused persist rolls back and rethrows",
        arguments: StoreKind.allCases,
        [(EACCES, StorageError.Code.unavailable), (ENOSPC, .full), (EROFS, .unavailable)])
    func aRefusedPersistRollsBack(kind: StoreKind, fault: (errno: Int32, code: StorageError.Code)) async throws {
        let fixture = try kind.fixture()
        let storage = FaultyStorage(try fixture.open())
        let settings = makeSettings(storage)
        try await settings.load()
        try await settings.set("engineId", .string("remote"))
        let heard = Heard()
        _ = settings.subscribe(heard.record)

        await storage.fail([.write], errno: fault.errno)
        for (key, value) in [("baseUrl", SettingValue.string("http://10.0.0.7:9000")), ("engineId", .string("echo"))] {
            do {
                try await settings.set(key, value)
                Issue.record("set of \(key) succeeded on a failing store")
            } catch {
                guard let storageError = error.storage else {
                    Issue.record("wrong error: \(error)")
                    continue
                }
                #expect(storageError.code == fault.code)
            }
        }
        // What was stored before the failed writes, and nothing else.
        #expect(settings.get("baseUrl") == nil)
        #expect(!settings.isSet("baseUrl"))
        #expect(settings.get("engineId") == .string("remote"))
        #expect(heard.all.isEmpty)
        await #expect(throws: SettingsError.self) { try await settings.unset("engineId") }
        #expect(settings.get("engineId") == .string("remote"))

        // What the store answers is what the next launch reads.
        let relaunched = makeSettings(try fixture.open())
        try await relaunched.load()
        for def in TestSettings.defs where !def.isSecret {
            #expect(relaunched.get(def.key) == settings.get(def.key), "\(def.key)")
        }

        // The pair: once the disk takes writes again, the same change goes through.
        await storage.heal()
        try await settings.set("baseUrl", .string("http://10.0.0.7:9000"))
        #expect(settings.isSet("baseUrl"))
        #expect(heard.all == ["baseUrl"])
    }

    @Test("changes made at the same time are all written", arguments: StoreKind.allCases)
    func concurrentChangesAreAllKept(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let settings = makeSettings(try fixture.open())
        try await settings.load()
        let changes: [(String, SettingValue)] = [
            ("engineId", .string("remote")), ("baseUrl", .string("https://a.example/v1")),
            ("someNumberSetting", .number(1.25)), ("streaming", .bool(false)),
        ]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (key, value) in changes {
                group.addTask { try await settings.set(key, value) }
            }
            try await group.waitForAll()
        }
        let relaunched = makeSettings(try fixture.open())
        try await relaunched.load()
        for (key, value) in changes {
            #expect(relaunched.get(key) == value, "\(key)")
        }
    }

    @Test("unset puts the default back and takes the field out of the file")
    func unsetRestoresTheDefault() async throws {
        let storage = MemoryStorage([SettingsStore.key: #"{"engineId": "remote", "myNote": "x"}"#])
        let settings = makeSettings(storage)
        try await settings.load()
        try await settings.unset("engineId")
        try await settings.unset("myNote")

        #expect(!settings.isSet("engineId"))
        #expect(settings.value("engineId") == .string("echo"))
        #expect(try await storage.read(file) == "{}\n")
    }

    @Test("set refuses a secret-flagged key, and setSecret is the way in")
    func setRefusesASecret() async throws {
        let secrets = MemorySecrets()
        let settings = makeSettings(MemoryStorage(), secrets: secrets)
        try await settings.load()
        do {
            try await settings.set("apiKey", .string("sk-live-must-not-leak"))
            Issue.record("set accepted a secret")
        } catch {
            #expect(error == .secretKey("apiKey"))
            #expect(!error.description.contains("sk-live"))
        }
        await #expect(throws: SettingsError.secretKey("apiKey")) { try await settings.unset("apiKey") }
        #expect(settings.value("apiKey") == nil)
        #expect(await secrets.get(SecretRef(.openai)) == nil)

        // The pair: the secret's own route stores it, in the secrets port.
        try await settings.setSecret("apiKey", "sk-live-must-not-leak")
        #expect(await secrets.get(SecretRef(.openai)) == "sk-live-must-not-leak")
        #expect(try await settings.hasSecret("apiKey"))
        await #expect(throws: SettingsError.notSecret("engineId")) {
            try await settings.setSecret("engineId", "x")
        }
    }

    @Test("clearing a secret wakes the screen, exactly as storing one does")
    func clearingASecretNotifies() async throws {
        let settings = makeSettings(MemoryStorage())
        try await settings.load()
        let heard = Heard()
        _ = settings.subscribe(heard.record)

        try await settings.setSecret("apiKey", "sk-test")
        #expect(heard.all == ["apiKey"])
        #expect(try await settings.hasSecret("apiKey"))

        try await settings.clearSecret("apiKey")
        #expect(heard.all == ["apiKey", "apiKey"])
        #expect(try await !settings.hasSecret("apiKey"))
    }

    @Test("a subscriber that unsubscribes another during notify does not silence it")
    func unsubscribingDuringNotify() async throws {
        let settings = makeSettings(MemoryStorage())
        try await settings.load()
        let heardBySecond = Heard()
        let second = Mutexed<SettingsStore.Subscription?>(nil)
        _ = settings.subscribe { _ in
            // The first subscriber tears the second down while the notification is under way.
            if let subscription = second.value { settings.unsubscribe(subscription) }
        }
        second.value = settings.subscribe(heardBySecond.record)

        try await settings.set("engineId", .string("remote"))
        #expect(heardBySecond.all == ["engineId"])

        // The pair: the unsubscribe did take effect for the next change.
        try await settings.set("engineId", .string("echo"))
        #expect(heardBySecond.all == ["engineId"])
    }

    @Test("the facade reports isSet from the store, not a constant")
    func theFacadeReportsIsSet() async throws {
        let settings = makeSettings(MemoryStorage([SettingsStore.key: #"{"engineId": "remote"}"#]))
        try await settings.load()
        let facade = SettingsFacade(settings)

        #expect(facade.isSet("engineId"))
        #expect(!facade.isSet("baseUrl"))
        try await facade.set("baseUrl", .string("http://10.0.0.7:9000"))
        #expect(facade.isSet("baseUrl"))
        try await facade.unset("engineId")
        #expect(!facade.isSet("engineId"))
        for def in TestSettings.defs {
            #expect(facade.isSet(def.key) == settings.isSet(def.key), "\(def.key)")
        }
    }

    @Test("no public route can put a secret into the persisted file", arguments: StoreKind.allCases)
    func noRoutePutsASecretOnDisk(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let storage = try fixture.open()
        let secrets = MemorySecrets()
        try await storage.write(file, #"{"apiKey": "sk-from-disk", "engineId": "remote"}"#)
        let leaks = ["sk-live-must-not-leak", "sk-from-disk"]

        // The scan sees a planted secret: it can prove the absence below.
        #expect(try await valuesContaining(leaks, in: fixture.open()) == [file])

        let settings = makeSettings(storage, secrets: secrets)
        try await settings.load()
        #expect(settings.refusals.map(\.key) == ["apiKey"])
        // Route 1: a refused set.
        await #expect(throws: SettingsError.secretKey("apiKey")) {
            try await settings.set("apiKey", .string("sk-live-must-not-leak"))
        }
        // Route 2: setSecret, which goes to the secrets port only.
        try await settings.setSecret("apiKey", "sk-live-must-not-leak")
        // Route 3: the disk-planted key that load dropped, gone at the next ordinary write.
        try await settings.set("baseUrl", .string("https://example.com/v1"))

        #expect(try await valuesContaining(leaks, in: fixture.open()) == [])
        let written = try #require(try await fixture.open().read(file))
        #expect(written.contains("https://example.com/v1"))
        #expect(written.contains(#""engineId" : "remote""#))
        #expect(await secrets.get(SecretRef(.openai)) == "sk-live-must-not-leak")
    }

    @Test(
        "every write of the settings file strips secret-flagged fields, whatever put them in the contents",
        arguments: StoreKind.allCases)
    func everyWriteStripsSecrets(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let settings = makeSettings(try fixture.open())
        try await settings.load()
        // No public route puts a secret into the contents (see above); this edit stands for the
        // bug that one day would: the write is the last guard.
        try await settings.change("apiKey") { contents in
            contents.values["apiKey"] = .string("sk-planted-in-the-contents")
            contents.values["engineId"] = .string("remote")
        }
        let written = try #require(try await fixture.open().read(file))
        #expect(!written.contains("sk-planted-in-the-contents"), "\(written)")
        #expect(!written.contains("apiKey"), "\(written)")
        // The pair: the plain field planted in the same edit is written.
        #expect(written.contains(#""engineId" : "remote""#), "\(written)")
    }

    @Test("plainOnly strips every secret-flagged key from what is written")
    func plainOnlyStripsSecrets() {
        let defs = Dictionary(uniqueKeysWithValues: TestSettings.defs.map { ($0.key, $0) })
        let fields: [String: JSONValue] = [
            "apiKey": .string("sk-x"), "engineId": .string("echo"), "myNote": .string("kept"),
        ]
        #expect(
            SettingsStore.plainOnly(fields, defs: defs) == ["engineId": .string("echo"), "myNote": .string("kept")])
    }

    @Test("readSecretSetting reads through the whole secrets port, and an empty value comes back nil")
    func readSecretSettingReads() async throws {
        let secrets = MemorySecrets()
        let defs = TestSettings.defs
        #expect(try await readSecretSetting(secrets: secrets, defs: defs, key: "apiKey") == nil)
        await secrets.set(SecretRef(.openai), "")
        #expect(try await readSecretSetting(secrets: secrets, defs: defs, key: "apiKey") == nil)
        await secrets.set(SecretRef(.openai), "sk-real")
        #expect(try await readSecretSetting(secrets: secrets, defs: defs, key: "apiKey") == "sk-real")

        await #expect(throws: SettingsError.notSecret("engineId")) {
            try await readSecretSetting(secrets: secrets, defs: defs, key: "engineId")
        }
        await #expect(throws: SettingsError.unknownKey("nope")) {
            try await readSecretSetting(secrets: secrets, defs: defs, key: "nope")
        }
    }

    @Test("a keychain that cannot be reached is an error, never an absent key")
    func anUnreachableKeychainIsAnError() async throws {
        let locked = SecretsError(code: .locked, operation: "get", ref: SecretRef(.openai))
        let secrets = LockedSecrets(error: locked)
        await #expect(throws: SettingsError.secrets(locked)) {
            try await readSecretSetting(secrets: secrets, defs: TestSettings.defs, key: "apiKey")
        }
        let settings = makeSettings(MemoryStorage(), secrets: secrets)
        await #expect(throws: SettingsError.secrets(locked)) { try await settings.hasSecret("apiKey") }
        await #expect(throws: SettingsError.secrets(locked)) { try await settings.setSecret("apiKey", "sk") }
    }

    /// The keys, in every namespace, whose value contains any of `needles`.
    private func valuesContaining(_ needles: [String], in storage: any StoragePort) async throws -> [StorageKey] {
        var found: [StorageKey] = []
        for namespace in Namespace.allCases {
            for id in try await storage.listIds(namespace) {
                let key = StorageKey(namespace, id)
                let value = try await storage.read(key) ?? ""
                if needles.contains(where: value.contains) { found.append(key) }
            }
        }
        return found
    }
}

/// A keychain that is locked: every call fails with the same typed error.
private struct LockedSecrets: SecretsPort {
    let error: SecretsError
    var protection: SecretProtection { .osKeyring }
    func has(_ ref: SecretRef) throws(SecretsError) -> Bool { throw error }
    func get(_ ref: SecretRef) throws(SecretsError) -> String? { throw error }
    func set(_ ref: SecretRef, _ value: String) throws(SecretsError) { throw error }
    func delete(_ ref: SecretRef) throws(SecretsError) { throw error }
}
