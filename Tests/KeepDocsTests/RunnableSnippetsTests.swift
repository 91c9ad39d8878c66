import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import KeepSealed
import KeepTestSupport
import Testing

/// The articles' examples that need no keyring and no data root, run: each does what its
/// article says it does.
@Suite("The articles' examples do what the articles say")
struct RunnableSnippetsTests {
    @Test("the ports' example reads back the value it wrote")
    func portsExample() async throws {
        #expect(try await PortsSnippets.storeAValue("{\"title\":\"hello\"}") == "{\"title\":\"hello\"}")
    }

    @Test("the ports' append example adds the turn's line after the head's")
    func appendExample() async throws {
        let storage = MemoryStorage()
        try await PortsSnippets.appendAndStamp(storage, headLine: "head", turnLine: "turn", lastSeen: nil)
        #expect(try await storage.read(StorageKey(.chats, "c1")) == "head\nturn\n")
    }

    @Test("the sealed-values example keeps a chat as sealed records, and no text in the store beneath")
    func sealedValuesExample() async throws {
        let inner = MemoryStorage()
        let state = try await SealedValuesSnippets.sealAChat(
            inner, dataKey: Array(repeating: 7, count: 32), headLine: "head words", turnLine: "turn words")
        #expect(state == .sealed)
        let raw = try await inner.read(StorageKey(.chats, "c1")) ?? ""
        #expect(raw.hasPrefix("keep-sealed-v1:") && !raw.contains("words"))
    }

    @Test("the ports' secrets example finds the key it stored and reads it back whole")
    func secretsExample() async throws {
        let secrets = MemorySecrets()
        let (configured, value) = try await PortsSnippets.keepASecret(secrets, "sk-example")
        #expect(configured)
        #expect(value == "sk-example")
        #expect(await secrets.has(SecretRef(.openrouter, account: "work")) == false, "the example removes it")
    }

    @Test("the ports' error example names the kind of failure and keeps the error's facts")
    func errorExample() {
        let full = StorageError(code: .full, operation: "write", path: "/data/store/chats/c1", errno: 28)
        #expect(PortsSnippets.explain(full).hasPrefix("the disk is full: "))
        #expect(PortsSnippets.explain(full).contains("/data/store/chats/c1"))
    }

    @Test("the settings example chooses the remote engine, in the settings file before it is used")
    func settingsExample() async throws {
        let storage = MemoryStorage()
        #expect(try await SettingsSnippets.chooseAnEngine(storage, MemorySecrets()) == "remote")
        let file = try await storage.read(SettingsStore.key) ?? ""
        #expect(file.contains("\"engineId\"") && file.contains("\"remote\""), "the settings file: \(file)")
    }

    @Test("the settings example's definitions refuse a value outside the rule and route the key to the keychain")
    func settingDefinitions() async throws {
        let defs = SettingsSnippets.definitions()
        #expect(throws: SettingsError.self) { try defs[0].accept(.string("gpt")) }
        #expect(try defs[0].accept(.string("remote")) == .string("remote"), "the pair: an allowed value is kept")
        let secrets = MemorySecrets()
        let storage = MemoryStorage()
        let settings = SettingsStore(storage: storage, secrets: secrets, defs: defs)
        try await settings.load()
        try await settings.setSecret("openaiApiKey", "sk-example")
        #expect(await secrets.get(SecretRef(.openai)) == "sk-example")
        #expect(try await storage.read(SettingsStore.key)?.contains("sk-example") != true)
    }

    @Test("the chats example stores the question and its answer together, and clears the draft")
    func chatsExample() async throws {
        let storage = MemoryStorage()
        let chat = try #require(try await ChatsSnippets.oneTurn(storage))
        #expect(chat.messages.map(\.text) == ["hello", "hi"])
        #expect(try await ChatRepository(storage: storage).draft(for: chat.id) == nil)
    }

    @Test(
        "the migration example copies the old store before the first read, marks it done, and leaves the old one as it was"
    )
    func migrationExample() async throws {
        let old = MemoryStorage([StorageKey(.chats, "c1"): "the old chat"])
        let new = MemoryStorage()
        let storage = ChatsSnippets.migratedStore(new, old)
        #expect(try await storage.read(StorageKey(.chats, "c1")) == "the old chat")
        #expect(try await new.read(MigrationMarker.key) != nil, "the done-marker is in the new store")
        #expect(await old.listIds(.cache).isEmpty, "no marker in the old store")
        #expect(try await old.read(StorageKey(.chats, "c1")) == "the old chat", "the old store unchanged")
    }

    @Test("the kept-data example keeps nothing, and writes no database, when keys live in process memory only")
    func vaultWithoutAKeyring() async throws {
        let directory = try TemporaryDirectory()
        #expect(try await KeptDataSnippets.openTheVault(MemoryKeyStore(), root: directory.path) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("kept.sqlite")))
    }

    @Test("the kept-data example's reading opens again, and neither it nor the server's address is on disk in clear")
    func keptReading() async throws {
        let directory = try TemporaryDirectory()
        let sealing = AESGCMSealing()
        let sealer = try sealing.sealer(for: try sealing.makeKey()).sealer
        let json = #"{"models":["marker-model-7f3a"]}"#
        let opened = try await KeptDataSnippets.keepAReading(
            sealer, root: directory.path, baseURL: "http://marker-host-7f3a.lan:8080/v1", json: json)
        #expect(opened == [json])
        // The pair first: the same scan finds a value planted in clear beside the database.
        try "marker-model-7f3a".write(toFile: directory.appending("planted"), atomically: true, encoding: .utf8)
        #expect(try await RawFileScan.files(under: [directory.path], containing: "marker-model-7f3a").count == 1)
        #expect(try await RawFileScan.files(under: [directory.path], containing: "marker-host-7f3a").isEmpty)
    }
}
