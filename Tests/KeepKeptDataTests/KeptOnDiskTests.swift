import Foundation
import KeepConformance
import KeepPorts
import KeepSQLite
import KeepSealed
import KeepTestSupport
import Testing

@testable import KeepKeptData

@Suite("What kept data leaves on disk")
struct KeptOnDiskTests {
    /// A control owner that keeps a value in clear, to prove the scans can see one.
    static let plain = KeptSchema(
        owner: "plain", migrations: [.init("create", sql: "CREATE TABLE plain_values (v TEXT)")])

    @Test(
        "readings, markers and preferences leave no trace of a value, model name, server address or key in the database file or its WAL"
    )
    func noPlaintextOnDisk() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let unique = UUID().uuidString.lowercased()
        let models = ["private-model-\(unique)", "another-private-\(unique)"]
        let host = "private-\(unique).example.test"
        // https: a key goes over plain http to loopback only (CleartextRule).
        let address = try ServerAddress("https://\(host):8080/v1")
        let says = "private-server-\(unique)"
        let apiKey = "sk-private-\(unique)"
        let chat = "chat-private-\(unique)"
        // Every value, and the field names of the shapes: a payload in clear would show both.
        let needles = models + [host, address.text, says, apiKey, chat, "firstSeen", "untilForgotten", "\"servers\""]
        let planted = "planted-plaintext-\(unique)"

        let sealer = try #require(
            try await DataKeyVault(
                keys: MemoryKeyStore(protection: .osKeyring), sealing: AESGCMSealing(), databasePath: path
            ).open().sealer)
        do {
            let database = try SQLiteDatabase(path: path)
            let server = ScriptedServer(.models(models), says: says)
            let engines = EnginesKeeper(
                store: try await EnginesSQLiteStore.open(database), sealer: sealer, http: server)
            let chats = ChatsKeeper(store: try await ChatsSQLiteStore.open(database), sealer: sealer)

            // The scans see a value written in clear: in the file or its WAL, and in the dump.
            try await database.migrate(Self.plain)
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute("INSERT INTO plain_values VALUES (?)", [.text(planted)])
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains("kept.sqlite-wal"))
            #expect(try await !RawFileScan.files(in: directory.path, containing: Array(planted.utf8)).isEmpty)
            #expect(try await RawDatabaseFiles.sqlite3(path, ".dump").contains(planted))

            // Readings (models, health), the servers, a marker, the retention, the last open chat.
            _ = try await engines.refresh(address, apiKey: apiKey)
            try await engines.looked(at: try await engines.whatIsNew())
            try await engines.setRetention(.untilForgotten)
            try await chats.setLastOpenChat(chat)
            #expect(server.requests.map(\.apiKey) == [apiKey])

            let counts = try await RawDatabaseFiles.sqlite3(
                path,
                "SELECT (SELECT count(*) FROM engines_readings) || ' ' || (SELECT count(*) FROM engines_markers) || ' '"
                    + " || (SELECT count(*) FROM engines_preferences) || ' ' || (SELECT count(*) FROM chats_preferences)"
            )
            #expect(counts.trimmingCharacters(in: .whitespacesAndNewlines) == "2 1 2 1", "every kind was written")
            let dump = try await RawDatabaseFiles.sqlite3(path, ".dump")
            for needle in needles {
                #expect(
                    try await RawFileScan.files(in: directory.path, containing: Array(needle.utf8)) == [], "\(needle)")
                #expect(!dump.contains(needle), "\(needle) in the dump")
            }
            // And all of it reads back under the key.
            let kept = try await engines.kept(address)
            #expect(kept.models?.value.ids == models)
            #expect(kept.health?.value.says == says)
            #expect(try await engines.servers() == [address])
            #expect(try await chats.lastOpenChat() == chat)
        }
        // Every connection has closed and folded the WAL into the file: still nothing.
        #expect(try !FileManager.default.contentsOfDirectory(atPath: directory.path).contains("kept.sqlite-wal"))
        for needle in needles {
            #expect(try await RawFileScan.files(in: directory.path, containing: Array(needle.utf8)) == [], "\(needle)")
        }
        #expect(try await !RawFileScan.files(in: directory.path, containing: Array(planted.utf8)).isEmpty)
    }

    @Test("sqlite3 opens the kept-data file and lists only owner-prefixed tables and Keep's bookkeeping")
    func tablesAreOwnerPrefixed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        _ = try #require(
            try await DataKeyVault(
                keys: MemoryKeyStore(protection: .osKeyring), sealing: AESGCMSealing(), databasePath: path
            ).open().sealer)
        do {
            let database = try SQLiteDatabase(path: path)
            _ = try await EnginesSQLiteStore.open(database)
            _ = try await ChatsSQLiteStore.open(database)
        }
        let tables = try await RawDatabaseFiles.sqlite3(path, ".tables").split(whereSeparator: \.isWhitespace).map(
            String.init)
        #expect(
            tables.sorted() == [
                "chats_preferences", "engines_markers", "engines_preferences", "engines_readings", "keep_migrations",
                "keep_vault",
            ])
    }
}
