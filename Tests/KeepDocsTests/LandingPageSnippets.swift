import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite
import KeepSealed
import Testing

/// The code of the libraries' DocC landing pages, compiled here (and run where it needs no
/// data root and no keyring), so that no landing page shows code that does not build.
enum LandingPageSnippets {
    /// KeepPorts: a value stored and read back, a secret set and found without loading it.
    static func ports() async throws -> (chat: String?, configured: Bool) {
        let storage: any StoragePort = MemoryStorage()
        try await storage.write(StorageKey(.chats, "c1"), #"{"title":"hello"}"#)
        let chat = try await storage.read(StorageKey(.chats, "c1"))  // nil when absent

        let secrets: any SecretsPort = MemorySecrets()
        let work = SecretRef(.openai, account: "work")
        try await secrets.set(work, "sk-example")
        let configured = try await secrets.has(work)  // never loads the value
        return (chat, configured)
    }

    /// KeepFileStore: a draft written under the user's data root (compiled, never run).
    static func fileStore() async throws {
        let root = try DataRoot.resolve(environment: ProcessInfo.processInfo.environment)
        let store: any StoragePort = try FileStore(root: root)
        try await store.write(StorageKey(.drafts, "c1"), "a question not yet sent")
    }

    /// KeepCore: the app booted on memory adapters, a setting changed, the chats listed
    /// (compiled; its run is the article's, in `SettingsSnippets`).
    static func core() async throws {
        let engine = SettingDef(
            key: "engineId", defaultValue: .string("echo"), label: "Engine", help: "Which engine answers.",
            section: "Engine", validator: .oneOf(["echo", "remote"]))
        let result = await boot(
            storage: MemoryStorage(), secrets: MemorySecrets(), defs: [engine], defaultEngine: "echo")
        if case .ready(let core) = result {
            try await core.settings.set("engineId", .string("remote"))
            let chats = try await core.chats.list()  // newest first
            print("\(chats.count) chats")
        }
    }

    /// KeepSealed: the sealer of the kept-data database at `database`, keys in `keys`.
    static func sealed(keys: any KeyStorePort, database: String) async throws -> (any SealingPort)? {
        func sealer(keys: any KeyStorePort, database: String) async throws -> (any SealingPort)? {
            let vault = DataKeyVault(keys: keys, sealing: AESGCMSealing(), databasePath: database)
            return try await vault.open().sealer  // nil when nothing may be kept
        }
        return try await sealer(keys: keys, database: database)
    }

    /// KeepSQLite: an owner's tables as named migrations, and a database at `path` opened
    /// with them (their migration run once).
    static func sqlite(_ path: String) async throws -> SQLiteDatabase {
        let schema = KeptSchema(
            owner: "notes",
            migrations: [.init("create notes", sql: "CREATE TABLE notes_rows (id INTEGER PRIMARY KEY, body BLOB);")])

        func open(_ path: String) async throws -> SQLiteDatabase {
            let database = try SQLiteDatabase(path: path)
            try await database.migrate(schema)
            return database
        }
        return try await open(path)
    }
}

@Suite("The landing pages' code runs")
struct LandingPageSnippetTests {
    @Test("KeepPorts' example stores a value and finds a secret")
    func ports() async throws {
        let outcome = try await LandingPageSnippets.ports()
        #expect(outcome.chat == #"{"title":"hello"}"# && outcome.configured)
    }

    @Test("KeepSealed's example opens a sealer that seals and opens, and none where nothing may be kept")
    func sealed() async throws {
        let directory = try TemporaryDirectory()
        let none = try await LandingPageSnippets.sealed(
            keys: MemoryKeyStore(), database: directory.appending("a.sqlite"))
        #expect(none == nil, "a key held in process memory keeps nothing")
        let sealer = try #require(
            try await LandingPageSnippets.sealed(
                keys: MemoryKeyStore(protection: .osKeyring), database: directory.appending("b.sqlite")))
        let binding = SealBinding(owner: "demo", kind: "note", shapeVersion: 1, subject: nil)
        #expect(try sealer.open(try sealer.seal(Array("kept".utf8), for: binding), for: binding) == Array("kept".utf8))
    }

    @Test("KeepSQLite's example opens a database with an owner's tables, and runs the migration once")
    func sqlite() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("notes.sqlite")
        let first = try await LandingPageSnippets.sqlite(path)
        try await first.write { transaction throws(SQLiteError) in
            try transaction.execute("INSERT INTO notes_rows (body) VALUES (?)", [.blob([1, 2, 3])])
        }
        let again = try await LandingPageSnippets.sqlite(path)
        let count = try await again.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT count(*) FROM notes_rows")[0].integer(0)
        }
        #expect(count == 1, "the second open ran no migration again, so the row is still there")
    }

    @Test("my store honours the storage contract", arguments: StorageContract.cases)
    func myStoreHonoursTheContract(_ rule: StorageContract.Case) async throws {
        try await rule.check { MemoryStorage() }  // your adapter, fresh and empty each call
    }
}
