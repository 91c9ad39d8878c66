import Foundation
import KeepConformance
import KeepPorts
import KeepSQLite
import KeepTestSupport
import Testing

@testable import KeepSealed

@Suite("What reaches the disk")
struct KeptBytesOnDiskTests {
    /// A control owner that keeps a value in clear, to prove the scans can see one.
    static let plain = KeptSchema(
        owner: "plain", migrations: [.init("create", sql: "CREATE TABLE plain_values (v TEXT)")])

    @Test("sealed rows leave no trace of the plaintext or the subject in the database file or its WAL")
    func noTraceOfPlaintextOnDisk() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let sealer = try #require(
            try await DataKeyVault(keys: KeyringDouble(), sealing: AESGCMSealing(), databasePath: path).open().sealer)
        let model = "secret-model-\(UUID().uuidString)"
        let server = "https://private-\(UUID().uuidString).example.test/v1"
        let needles = [model, server, "private-", "secret-model"]
        let marker = "planted-plaintext-\(UUID().uuidString)"
        do {
            let store = DemoOwner.Store(database: try SQLiteDatabase(path: path))
            try await store.database.migrate(DemoOwner.schema)
            try await store.database.migrate(Self.plain)

            // A value written in clear is found by the same scans: in the file or its WAL,
            // and in what the sqlite3 tool dumps.
            try await store.database.write { transaction throws(SQLiteError) in
                try transaction.execute("INSERT INTO plain_values VALUES (?)", [.text(marker)])
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains("kept.sqlite-wal"))
            #expect(try await !RawFileScan.files(in: directory.path, containing: Array(marker.utf8)).isEmpty)
            #expect(try await SQLiteTool.run(path, ".dump").joined().contains(marker))

            // Readings about a private server, sealed before they reach the store.
            let subject = try sealer.subjectHash(server)
            for kind in ["models", "health"] {
                let binding = SealBinding(owner: DemoOwner.owner, kind: kind, shapeVersion: 1, subject: subject)
                let reading = "{\"server\":\"\(server)\",\"models\":[\"\(model)\"]}"
                try await store.keep(
                    try sealer.seal(Array(reading.utf8), for: binding), kind: kind, subject: subject, version: 1)
            }
            for needle in needles {
                #expect(
                    try await RawFileScan.files(in: directory.path, containing: Array(needle.utf8)) == [], "\(needle)")
                #expect(try await !SQLiteTool.run(path, ".dump").joined().contains(needle), "\(needle)")
            }
            // The rows are there, and open again under the key.
            let rows = try await store.all()
            #expect(rows.count == 2)
            for row in rows {
                let binding = SealBinding(
                    owner: DemoOwner.owner, kind: row.kind, shapeVersion: row.version, subject: row.subject)
                #expect(String(decoding: try sealer.open(row.sealed, for: binding), as: UTF8.self).contains(model))
            }
        }
        // The last connection has closed and folded the WAL into the file: still nothing.
        #expect(try !FileManager.default.contentsOfDirectory(atPath: directory.path).contains("kept.sqlite-wal"))
        for needle in needles {
            #expect(try await RawFileScan.files(in: directory.path, containing: Array(needle.utf8)) == [], "\(needle)")
        }
        #expect(try await !RawFileScan.files(in: directory.path, containing: Array(marker.utf8)).isEmpty)
    }
}
