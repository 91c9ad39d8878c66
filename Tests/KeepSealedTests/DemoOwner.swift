import KeepPorts
import KeepSealed

/// An owner as the app's owners will be: a prefix, migrations, and one store type with
/// one named method per query, taking and returning only sealed payloads, subject
/// hashes and bookkeeping.
enum DemoOwner {
    static let owner: KeptOwner = "demo"

    static let schema = KeptSchema(
        owner: owner,
        migrations: [
            .init(
                "create rows",
                sql: """
                    CREATE TABLE demo_rows (
                        id INTEGER PRIMARY KEY, kind TEXT NOT NULL, subject BLOB, version INTEGER NOT NULL,
                        sealed BLOB NOT NULL);
                    """),
            .init("index rows by subject", sql: "CREATE INDEX demo_rows_by_subject ON demo_rows (subject, kind);"),
        ])

    /// One kept row, as the store hands it back.
    struct Row: Sendable, Equatable {
        let kind: String
        let subject: SubjectHash?
        let version: Int
        let sealed: SealedPayload
    }

    /// The demo owner's store.
    struct Store: Sendable {
        let database: SQLiteDatabase

        func keep(_ sealed: SealedPayload, kind: String, subject: SubjectHash?, version: Int) async throws {
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute(
                    "INSERT INTO demo_rows (kind, subject, version, sealed) VALUES (?, ?, ?, ?)",
                    [.text(kind), SQLiteValue(subject), .integer(Int64(version)), SQLiteValue(sealed)])
            }
        }

        func all() async throws -> [Row] {
            let rows = try await database.read { transaction throws(SQLiteError) in
                try transaction.query("SELECT kind, subject, version, sealed FROM demo_rows")
            }
            return try rows.map { row in
                Row(
                    kind: try row.text(0), subject: try row.optionalBlob(1).map(SubjectHash.init(bytes:)),
                    version: Int(try row.integer(2)), sealed: try SealedPayload(bytes: try row.blob(3)))
            }
        }

        func count() async throws -> Int {
            Int(
                try await database.read { transaction throws(SQLiteError) in
                    try transaction.query("SELECT count(*) FROM demo_rows")[0].integer(0)
                })
        }
    }
}
