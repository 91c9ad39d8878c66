import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import Testing

@Suite("Loading a settings file the user can hand-edit")
struct SettingsLoadTests {
    private let file = SettingsStore.key

    @Test(
        "a non-scalar value in the file is refused, not stored",
        arguments: StoreKind.allCases, [#"{"deep": 1}"#, "[1, 2]", "null", "[]", "{}"])
    func aNonScalarIsRefused(kind: StoreKind, junk: String) async throws {
        // The fixture owns the test's directory: it must live as long as the store.
        let fixture = try kind.fixture()
        let storage = try fixture.open()
        try await storage.write(file, #"{"someNumberSetting": \#(junk), "engineId": "remote"}"#)
        let settings = makeSettings(storage)
        try await settings.load()

        #expect(settings.get("someNumberSetting") == nil)
        #expect(!settings.isSet("someNumberSetting"))
        #expect(settings.value("someNumberSetting") == .number(0.7))
        #expect(settings.refusals.map(\.key) == ["someNumberSetting"])
        // The same file's scalar field is read: the refusal is of that field alone.
        #expect(settings.value("engineId") == .string("remote"))
        #expect(settings.isSet("engineId"))
    }

    @Test(
        "a value the validator rejects falls back to the default",
        arguments: StoreKind.allCases,
        [
            ("someNumberSetting", #""abc""#), ("someNumberSetting", "3"), ("someNumberSetting", "-0.1"),
            ("someNumberSetting", "true"), ("engineId", #""warp""#), ("engineId", "5"), ("engineId", #""Echo""#),
            ("baseUrl", #""ftp://example.com""#), ("baseUrl", #""not a url""#), ("baseUrl", #""http://""#),
            ("streaming", #""maybe""#), ("streaming", "1"),
        ])
    func aRejectedValueFallsBack(kind: StoreKind, field: (key: String, json: String)) async throws {
        // The fixture owns the test's directory: it must live as long as the store.
        let fixture = try kind.fixture()
        let storage = try fixture.open()
        try await storage.write(file, #"{"\#(field.key)": \#(field.json)}"#)
        let settings = makeSettings(storage)
        try await settings.load()

        let def = try #require(TestSettings.defs.first { $0.key == field.key })
        #expect(settings.value(field.key) == def.defaultValue)
        #expect(settings.get(field.key) == nil)
        #expect(!settings.isSet(field.key))
        #expect(settings.refusals.map(\.key) == [field.key])
        #expect(settings.refusals.first?.reason.contains(def.rule) == true)
        #expect(settings.health == .fine)
    }

    @Test(
        "a value the validator accepts is kept",
        arguments: StoreKind.allCases,
        [
            ("someNumberSetting", "1.5", SettingValue.number(1.5)), ("someNumberSetting", "0", .number(0)),
            ("someNumberSetting", "2", .number(2)), ("someNumberSetting", #"" 1.25 ""#, .number(1.25)),
            ("engineId", #""remote""#, .string("remote")),
            ("baseUrl", #""https://api.example.com/v1""#, .string("https://api.example.com/v1")),
            ("baseUrl", #""http://10.0.0.7:9000""#, .string("http://10.0.0.7:9000")),
            ("streaming", "false", .bool(false)), ("streaming", #""false""#, .bool(false)),
        ])
    func anAcceptedValueIsKept(kind: StoreKind, field: (key: String, json: String, kept: SettingValue)) async throws {
        // The fixture owns the test's directory: it must live as long as the store.
        let fixture = try kind.fixture()
        let storage = try fixture.open()
        try await storage.write(file, #"{"\#(field.key)": \#(field.json)}"#)
        let settings = makeSettings(storage)
        try await settings.load()

        #expect(settings.get(field.key) == field.kept)
        #expect(settings.value(field.key) == field.kept)
        #expect(settings.isSet(field.key))
        #expect(settings.refusals.isEmpty)
    }

    @Test(
        "a hand-edited settings file full of junk boots with defaults and is not overwritten",
        arguments: StoreKind.allCases,
        [
            "this is not json at all", #"{"engineId": "remote","#, "[1, 2, 3]", #""just a string""#, "\u{FEFF}{{",
            #"{"engineId": ["remote"], "someNumberSetting": {"deep": 1}, "baseUrl": "gopher://x", "streaming": "perhaps", "apiKey": "sk-from-disk"}"#,
        ])
    func junkBootsWithDefaults(kind: StoreKind, junk: String) async throws {
        let fixture = try kind.fixture()
        let storage = FaultyStorage(try fixture.open())
        try await storage.write(file, junk)
        let writesBefore = await storage.calls[.write, default: 0]

        let result = await boot(
            storage: storage, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")

        guard case .ready(let core) = result else {
            Issue.record("boot failed on a junk settings file: \(result)")
            return
        }
        #expect(core.engineId == "echo")
        for def in TestSettings.defs where !def.isSecret {
            #expect(core.settings.value(def.key) == def.defaultValue, "\(def.key)")
            #expect(!core.settings.isSet(def.key), "\(def.key)")
        }
        #expect(core.settings.health != .fine || !core.settings.refusals.isEmpty, "the junk is reported")
        #expect(await storage.calls[.write, default: 0] == writesBefore, "boot wrote to the store")
        #expect(try await fixture.open().read(file) == junk)
    }

    @Test("an unreadable settings file is reported, and the defaults are used in memory only")
    func anUnreadableFileIsReported() async throws {
        let storage = MemoryStorage([SettingsStore.key: "{ broken"])
        let settings = makeSettings(storage)
        try await settings.load()

        #expect(settings.health == .unreadable(reason: "not valid JSON"))
        #expect(settings.value("engineId") == .string("echo"))
        #expect(try await storage.read(file) == "{ broken")
        #expect(await storage.listIds(.settings) == ["settings"])
    }

    @Test("an unreadable settings file is kept aside, whole, before the first change replaces it")
    func anUnreadableFileIsKeptAside() async throws {
        let storage = MemoryStorage([SettingsStore.key: "{ broken"])
        let settings = makeSettings(storage)
        try await settings.load()
        try await settings.set("engineId", .string("remote"))

        let asideId = "settings.corrupt-20250615t150640z"
        #expect(settings.health == .keptAside(id: asideId, reason: "not valid JSON"))
        #expect(try await storage.read(StorageKey(.settings, asideId)) == "{ broken")
        // Only the user's change is written: the defaults stay in memory.
        #expect(try await storage.read(file) == "{\n  \"engineId\" : \"remote\"\n}\n")

        let relaunched = makeSettings(storage)
        try await relaunched.load()
        #expect(relaunched.health == .fine)
        #expect(relaunched.value("engineId") == .string("remote"))
    }

    @Test("the warning says what happens: used as defaults, moved aside on the next change, and to which name")
    func theWordsAreTrue() async throws {
        let storage = MemoryStorage([SettingsStore.key: "{ broken"])
        let settings = makeSettings(storage)
        try await settings.load()
        let before = settings.health.description
        #expect(!before.contains("left as it is"), "\(before)")
        #expect(before.contains("the next change of a setting moves the file aside"), "\(before)")
        #expect(before.contains("settings/settings.corrupt-<time>") && before.contains("replaces it"), "\(before)")
        try await settings.set("engineId", .string("remote"))
        let after = settings.health.description
        #expect(after.contains("moved aside to settings/settings.corrupt-20250615t150640z"), "\(after)")
        #expect(after.contains("replaced by a new one"), "\(after)")
        #expect(try await storage.read(StorageKey(.settings, "settings.corrupt-20250615t150640z")) != nil)
    }

    @Test(
        "the moved-aside copy of an unreadable settings file holds no secret-flagged value, and keeps the rest",
        arguments: [
            #"{"apiKey": "sk-from-disk", "engineId": "remote", "#,
            #"{"engineId": "remote", "apiKey": "sk-from-disk"  "#,
            #"{'apiKey': 'sk-from-disk', 'engineId': 'remote'}"#,
            #"{apiKey: sk-from-disk, engineId: "remote"}"#,
            #"{"api\u004bey" : "sk-from-disk", "engineId": "remote" "#,
            "{\"engineId\": \"remote\",\n\"apiKey\": \"sk-from-disk",
            #"{"engineId": "remote", "apiKey": sk-from-disk}} junk"#,
        ])
    func keptAsideWithoutSecrets(_ text: String) async throws {
        #expect(text.contains("sk-from-disk"), "the file holds the secret")
        let storage = MemoryStorage([SettingsStore.key: text])
        let settings = makeSettings(storage)
        try await settings.load()
        guard case .unreadable = settings.health else {
            Issue.record("not unreadable: \(settings.health)")
            return
        }
        try await settings.set("streaming", .bool(false))
        let copy = try #require(try await storage.read(StorageKey(.settings, "settings.corrupt-20250615t150640z")))
        #expect(!copy.contains("sk-from-disk"), "\(copy)")
        #expect(copy.contains("engineId") && copy.contains("remote"), "the rest is kept: \(copy)")
        #expect(copy.contains("a secret was here"), "\(copy)")
        for id in try await storage.listIds(.settings) {
            #expect(try await storage.read(StorageKey(.settings, id))?.contains("sk-from-disk") == false, "\(id)")
        }
    }

    @Test("a kept-aside copy never overwrites an earlier one")
    func keptAsideNeverOverwrites() async throws {
        let earlier = StorageKey(.settings, "settings.corrupt-20250615t150640z")
        let storage = MemoryStorage([SettingsStore.key: "second junk", earlier: "first junk"])
        let settings = makeSettings(storage)
        try await settings.load()
        try await settings.set("streaming", .bool(false))

        #expect(try await storage.read(earlier) == "first junk")
        #expect(try await storage.read(StorageKey(.settings, earlier.id + "-2")) == "second junk")
        #expect(settings.health == .keptAside(id: earlier.id + "-2", reason: "not valid JSON"))
    }

    @Test("a settings file that is not text is left alone, and changes are refused until it is moved")
    func aFileThatIsNotTextIsLeftAlone() async throws {
        let storage = FaultyStorage(MemoryStorage())
        await storage.fail(
            [.read], with: StorageError(code: .corrupt, operation: "read", path: file.description, reason: "not UTF-8"),
            only: file)
        let settings = makeSettings(storage)
        try await settings.load()
        let reason = "read of \(file.description) failed: not UTF-8"
        #expect(settings.health == .refused(reason: reason))
        #expect(settings.health.description.contains("changes no setting until the file is fixed or removed"))
        #expect(settings.value("engineId") == .string("echo"))

        await #expect(throws: SettingsError.unreadableFile(path: file.description, reason: reason)) {
            try await settings.set("engineId", .string("remote"))
        }
        #expect(await storage.calls[.write, default: 0] == 0)

        // Once the file is readable again (moved away), changes are written.
        await storage.heal()
        try await settings.load()
        try await settings.set("engineId", .string("remote"))
        #expect(settings.value("engineId") == .string("remote"))
    }

    @Test("a settings file of bytes that are not text is left byte for byte on the file store")
    func bytesThatAreNotTextAreLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "c1"), "makes the store's directories")
        try FileManager.default.createDirectory(
            atPath: directory.appending("store/settings"), withIntermediateDirectories: true)
        let path = directory.appending("store/settings/settings")
        let garbage = Data([0xFF, 0xFE, 0x00, 0x7B, 0xC3])
        try garbage.write(to: URL(filePath: path))

        let result = await boot(
            storage: try FileStore(root: directory.path), secrets: MemorySecrets(), defs: TestSettings.defs,
            defaultEngine: "echo")
        guard case .ready(let core) = result else {
            Issue.record("boot failed on a settings file of junk bytes: \(result)")
            return
        }
        guard case .refused = core.settings.health else {
            Issue.record("not reported: \(core.settings.health)")
            return
        }
        await #expect(throws: SettingsError.self) { try await core.settings.set("engineId", .string("remote")) }
        #expect(try Data(contentsOf: URL(filePath: path)) == garbage)
    }

    @Test(
        "keys the app does not know, and values it refused, are written back as they were",
        arguments: StoreKind.allCases)
    func unknownKeysArePreserved(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let storage = try fixture.open()
        try await storage.write(
            file, #"{"engineId": "echo", "myNote": "hello", "nested": {"a": [1, 2]}, "someNumberSetting": "abc"}"#)
        let settings = makeSettings(storage)
        try await settings.load()
        try await settings.set("engineId", .string("remote"))

        let written = try #require(try await fixture.open().read(file))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        #expect(object["engineId"] as? String == "remote")
        #expect(object["myNote"] as? String == "hello")
        #expect((object["nested"] as? [String: Any])?["a"] as? [Int] == [1, 2])
        #expect(object["someNumberSetting"] as? String == "abc")
        #expect(object.count == 4)
    }

    @Test("a blank settings file reads as no settings")
    func aBlankFileIsEmpty() async throws {
        let storage = MemoryStorage([SettingsStore.key: " \n"])
        let settings = makeSettings(storage)
        try await settings.load()
        #expect(settings.health == .fine)
        #expect(settings.refusals.isEmpty)
        #expect(!settings.isSet("engineId"))
    }

    @Test("the settings file is one pretty-printed JSON object with sorted keys", arguments: StoreKind.allCases)
    func theFileIsPrettyAndSorted(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let settings = makeSettings(try fixture.open())
        try await settings.load()
        try await settings.set("streaming", .bool(false))
        try await settings.set("someNumberSetting", .string("1.5"))
        try await settings.set("baseUrl", .string("https://api.example.com/v1"))
        try await settings.set("engineId", .string("remote"))

        let expected = """
            {
              "baseUrl" : "https://api.example.com/v1",
              "engineId" : "remote",
              "someNumberSetting" : 1.5,
              "streaming" : false
            }

            """
        #expect(try await fixture.open().read(file) == expected)
    }
}
