import KeepPorts
import KeepSQLite

/// An owner as the app's owners will be: a prefix, migrations, and one store type with
/// one named method per query, taking and returning only sealed payloads, subject
/// hashes and bookkeeping.
package enum DemoOwner {
    package static let owner: KeptOwner = "demo"

    package static let schema = KeptSchema(
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
    package struct Row: Sendable, Equatable {
        package let kind: String
        package let subject: SubjectHash?
        package let version: Int
        package let sealed: SealedPayload

        package init(kind: String, subject: SubjectHash?, version: Int, sealed: SealedPayload) {
            self.kind = kind
            self.subject = subject
            self.version = version
            self.sealed = sealed
        }
    }

    /// The demo owner's store.
    package struct Store: Sendable {
        package let database: SQLiteDatabase

        package init(database: SQLiteDatabase) {
            self.database = database
        }

        package func keep(_ sealed: SealedPayload, kind: String, subject: SubjectHash?, version: Int) async throws {
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute(
                    "INSERT INTO demo_rows (kind, subject, version, sealed) VALUES (?, ?, ?, ?)",
                    [.text(kind), SQLiteValue(subject), .integer(Int64(version)), SQLiteValue(sealed)])
            }
        }

        package func all() async throws -> [Row] {
            let rows = try await database.read { transaction throws(SQLiteError) in
                try transaction.query("SELECT kind, subject, version, sealed FROM demo_rows")
            }
            return try rows.map { row in
                Row(
                    kind: try row.text(0), subject: try row.optionalBlob(1).map(SubjectHash.init(bytes:)),
                    version: Int(try row.integer(2)), sealed: try SealedPayload(bytes: try row.blob(3)))
            }
        }

        package func count() async throws -> Int {
            Int(
                try await database.read { transaction throws(SQLiteError) in
                    try transaction.query("SELECT count(*) FROM demo_rows")[0].integer(0)
                })
        }
    }
}
