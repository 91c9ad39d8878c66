import KeepPorts
import KeepSQLite
import KeepSealed

/// The chats store on the kept-data database: the module's preferences table, its
/// migrations, and one named query per intent of ``ChatsStorePort``.
///
/// This file is the only place the chats table is named and its SQL written. Every value
/// reaches SQLite as a bound parameter; every row becomes a ``KeptRecord`` in
/// ``record(_:)`` and nowhere else.
package struct ChatsSQLiteStore: ChatsStorePort {
    static let schema = KeptSchema(
        owner: ChatsKeeper.owner,
        migrations: [
            .init(
                "create preferences",
                sql: """
                    CREATE TABLE chats_preferences (
                        kind TEXT PRIMARY KEY NOT NULL,
                        shape_version INTEGER NOT NULL,
                        set_at INTEGER NOT NULL,
                        sealed BLOB NOT NULL) STRICT;
                    """)
        ])

    let database: SQLiteDatabase

    /// The store on `database`, its migrations run first (a no-op once they have).
    package static func open(_ database: SQLiteDatabase) async throws(KeptError) -> ChatsSQLiteStore {
        do throws(SQLiteError) {
            try await database.migrate(schema)
        } catch {
            throw .database("migrate the chats tables", error)
        }
        return ChatsSQLiteStore(database: database)
    }

    private init(database: SQLiteDatabase) {
        self.database = database
    }

    package func keepPreference(_ preference: KeptRecord) async throws(KeptError) {
        guard preference.subject == nil else {
            throw .refused("keep a chats preference", "a chats preference is about no subject, and this one names one")
        }
        do throws(SQLiteError) {
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute(
                    """
                    INSERT INTO chats_preferences (kind, shape_version, set_at, sealed) VALUES (?, ?, ?, ?)
                    ON CONFLICT (kind) DO UPDATE SET
                        shape_version = excluded.shape_version, set_at = excluded.set_at, sealed = excluded.sealed
                    """,
                    [
                        .text(preference.kind), .integer(Int64(preference.shapeVersion)),
                        .integer(preference.at.millisecondsSince1970), SQLiteValue(preference.sealed),
                    ])
            }
        } catch {
            throw .database("keep the \(preference.kind) preference", error)
        }
    }

    package func preference(_ kind: String) async throws(KeptError) -> KeptRecord? {
        let rows: [SQLiteRow]
        do throws(SQLiteError) {
            rows = try await database.read { transaction throws(SQLiteError) in
                try transaction.query(
                    "SELECT kind, shape_version, set_at, sealed FROM chats_preferences WHERE kind = ?", [.text(kind)])
            }
        } catch {
            throw .database("read the \(kind) preference", error)
        }
        return try rows.first.map(Self.record)
    }

    package func forgetPreference(_ kind: String) async throws(KeptError) -> Bool {
        do throws(SQLiteError) {
            return try await database.write { transaction throws(SQLiteError) in
                try transaction.execute("DELETE FROM chats_preferences WHERE kind = ?", [.text(kind)]) > 0
            }
        } catch {
            throw .database("forget the \(kind) preference", error)
        }
    }

    // MARK: - Rows and values

    /// A row selected as kind, shape version, time, sealed: the one place a row becomes a
    /// value. A row that cannot be one is a typed ``KeptError/Code/unreadable`` error.
    private static func record(_ row: SQLiteRow) throws(KeptError) -> KeptRecord {
        let operation = "read a chats row"
        let kind: String
        let version: Int64
        let at: Int64
        let sealedBytes: [UInt8]
        do {
            kind = try row.text(0)
            version = try row.integer(1)
            at = try row.integer(2)
            sealedBytes = try row.blob(3)
        } catch {
            throw KeptError(.unreadable, operation: operation, detail: error.message, database: error)
        }
        guard let shapeVersion = Int(exactly: version) else {
            throw KeptError(.unreadable, operation: operation, detail: "shape version \(version) is out of range")
        }
        do {
            return KeptRecord(
                kind: kind, subject: nil, shapeVersion: shapeVersion, at: KeptInstant(millisecondsSince1970: at),
                sealed: try SealedPayload(bytes: sealedBytes))
        } catch {
            throw KeptError(.unreadable, operation: operation, detail: error.detail, sealing: error)
        }
    }
}
