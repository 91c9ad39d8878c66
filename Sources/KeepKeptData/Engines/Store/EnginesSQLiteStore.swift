import KeepPorts
import KeepSQLite
import KeepSealed

/// The engines store on the kept-data database: the module's three tables, its
/// migrations, and one named query per intent of ``EnginesStorePort``.
///
/// This file is the only place the engines tables are named and their SQL written.
/// Every value reaches SQLite as a bound parameter; every row becomes a ``KeptRecord``
/// in ``record(_:)`` and nowhere else. Times are whole milliseconds since 1970, subjects
/// and payloads blobs; the payload is never opened here.
package struct EnginesSQLiteStore: EnginesStorePort {
    /// The engines tables: each carries the owner's prefix, as the migration runner enforces.
    static let schema = KeptSchema(
        owner: EnginesKeeper.owner,
        migrations: [
            .init(
                "create readings, markers and preferences",
                sql: """
                    CREATE TABLE engines_readings (
                        subject BLOB NOT NULL CHECK (length(subject) = 32),
                        kind TEXT NOT NULL,
                        shape_version INTEGER NOT NULL,
                        read_at INTEGER NOT NULL,
                        sealed BLOB NOT NULL,
                        PRIMARY KEY (subject, kind)) STRICT;
                    CREATE INDEX engines_readings_by_time ON engines_readings (read_at);
                    CREATE TABLE engines_markers (
                        subject BLOB NOT NULL CHECK (length(subject) = 32),
                        kind TEXT NOT NULL,
                        shape_version INTEGER NOT NULL,
                        marked_at INTEGER NOT NULL,
                        sealed BLOB NOT NULL,
                        PRIMARY KEY (subject, kind)) STRICT;
                    CREATE TABLE engines_preferences (
                        kind TEXT NOT NULL,
                        subject BLOB CHECK (subject IS NULL OR length(subject) = 32),
                        shape_version INTEGER NOT NULL,
                        set_at INTEGER NOT NULL,
                        sealed BLOB NOT NULL) STRICT;
                    CREATE UNIQUE INDEX engines_preferences_one ON engines_preferences (kind, ifnull(subject, x''));
                    """)
        ])

    let database: SQLiteDatabase

    /// The store on `database`, its migrations run first (a no-op once they have).
    package static func open(_ database: SQLiteDatabase) async throws(KeptError) -> EnginesSQLiteStore {
        do throws(SQLiteError) {
            try await database.migrate(schema)
        } catch {
            throw .database("migrate the engines tables", error)
        }
        return EnginesSQLiteStore(database: database)
    }

    private init(database: SQLiteDatabase) {
        self.database = database
    }

    package func keepReading(_ reading: KeptRecord) async throws(KeptError) {
        let subject = try Self.aboutAServer(reading, "keep a reading")
        try await write("keep a \(reading.kind) reading") { transaction throws(SQLiteError) in
            // The newer of the two wins, whichever process writes last.
            try transaction.execute(
                """
                INSERT INTO engines_readings (subject, kind, shape_version, read_at, sealed) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (subject, kind) DO UPDATE SET
                    shape_version = excluded.shape_version, read_at = excluded.read_at, sealed = excluded.sealed
                WHERE excluded.read_at >= engines_readings.read_at
                """,
                [
                    SQLiteValue(subject), .text(reading.kind), .integer(Int64(reading.shapeVersion)),
                    .integer(reading.at.millisecondsSince1970), SQLiteValue(reading.sealed),
                ])
        }
    }

    package func newestReadings(about subject: SubjectHash) async throws(KeptError) -> [KeptRecord] {
        try await read("read the readings about a server") { transaction throws(SQLiteError) in
            try transaction.query(
                """
                SELECT kind, subject, shape_version, read_at, sealed FROM engines_readings
                WHERE subject = ? ORDER BY kind
                """, [SQLiteValue(subject)])
        }
    }

    package func discardReading(_ reading: KeptRecord) async throws(KeptError) {
        let subject = try Self.aboutAServer(reading, "discard a reading")
        try await write("discard a \(reading.kind) reading") { transaction throws(SQLiteError) in
            try transaction.execute(
                """
                DELETE FROM engines_readings
                WHERE subject = ? AND kind = ? AND read_at = ? AND shape_version = ?
                """,
                [
                    SQLiteValue(subject), .text(reading.kind), .integer(reading.at.millisecondsSince1970),
                    .integer(Int64(reading.shapeVersion)),
                ])
        }
    }

    package func pruneReadings(readBefore cutoff: KeptInstant) async throws(KeptError) -> Int {
        try await write("prune old readings") { transaction throws(SQLiteError) in
            try transaction.execute(
                "DELETE FROM engines_readings WHERE read_at < ?", [.integer(cutoff.millisecondsSince1970)])
        }
    }

    package func keepMarker(_ marker: KeptRecord) async throws(KeptError) {
        let subject = try Self.aboutAServer(marker, "keep a marker")
        try await write("keep a \(marker.kind) marker") { transaction throws(SQLiteError) in
            try transaction.execute(
                """
                INSERT INTO engines_markers (subject, kind, shape_version, marked_at, sealed) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (subject, kind) DO UPDATE SET
                    shape_version = excluded.shape_version, marked_at = excluded.marked_at, sealed = excluded.sealed
                """,
                [
                    SQLiteValue(subject), .text(marker.kind), .integer(Int64(marker.shapeVersion)),
                    .integer(marker.at.millisecondsSince1970), SQLiteValue(marker.sealed),
                ])
        }
    }

    package func marker(_ kind: String, about subject: SubjectHash) async throws(KeptError) -> KeptRecord? {
        try await read("read the \(kind) marker") { transaction throws(SQLiteError) in
            try transaction.query(
                """
                SELECT kind, subject, shape_version, marked_at, sealed FROM engines_markers
                WHERE subject = ? AND kind = ?
                """, [SQLiteValue(subject), .text(kind)])
        }.first
    }

    package func keepPreference(_ preference: KeptRecord) async throws(KeptError) {
        try await write("keep the \(preference.kind) preference") { transaction throws(SQLiteError) in
            // One statement per step, in one transaction: the earlier preference goes and
            // the new one arrives together. (`IS` matches a NULL subject, `=` would not.)
            try transaction.execute(
                "DELETE FROM engines_preferences WHERE kind = ? AND subject IS ?",
                [.text(preference.kind), SQLiteValue(preference.subject)])
            try transaction.execute(
                "INSERT INTO engines_preferences (kind, subject, shape_version, set_at, sealed) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(preference.kind), SQLiteValue(preference.subject), .integer(Int64(preference.shapeVersion)),
                    .integer(preference.at.millisecondsSince1970), SQLiteValue(preference.sealed),
                ])
        }
    }

    package func preference(_ kind: String, about subject: SubjectHash?) async throws(KeptError) -> KeptRecord? {
        try await read("read the \(kind) preference") { transaction throws(SQLiteError) in
            try transaction.query(
                """
                SELECT kind, subject, shape_version, set_at, sealed FROM engines_preferences
                WHERE kind = ? AND subject IS ?
                """, [.text(kind), SQLiteValue(subject)])
        }.first
    }

    package func forget(about subject: SubjectHash) async throws(KeptError) -> Int {
        try await write("forget a server") { transaction throws(SQLiteError) in
            let about = [SQLiteValue(subject)]
            return try transaction.execute("DELETE FROM engines_readings WHERE subject = ?", about)
                + transaction.execute("DELETE FROM engines_markers WHERE subject = ?", about)
                + transaction.execute("DELETE FROM engines_preferences WHERE subject = ?", about)
        }
    }

    // MARK: - Rows and values

    /// A row of any engines table, selected as kind, subject, shape version, time, sealed:
    /// the one place a row becomes a value. A row that cannot be one (a damaged file, a
    /// hand edit) is a typed ``KeptError/Code/unreadable`` error naming what is wrong.
    private static func record(_ row: SQLiteRow) throws(KeptError) -> KeptRecord {
        let operation = "read an engines row"
        let kind: String
        let subjectBytes: [UInt8]?
        let version: Int64
        let at: Int64
        let sealedBytes: [UInt8]
        do {
            kind = try row.text(0)
            subjectBytes = try row.optionalBlob(1)
            version = try row.integer(2)
            at = try row.integer(3)
            sealedBytes = try row.blob(4)
        } catch {
            throw KeptError(.unreadable, operation: operation, detail: error.message, database: error)
        }
        guard let shapeVersion = Int(exactly: version) else {
            throw KeptError(.unreadable, operation: operation, detail: "shape version \(version) is out of range")
        }
        do {
            return KeptRecord(
                kind: kind, subject: try subjectBytes.map(SubjectHash.init(bytes:)), shapeVersion: shapeVersion,
                at: KeptInstant(millisecondsSince1970: at), sealed: try SealedPayload(bytes: sealedBytes))
        } catch {
            throw KeptError(.unreadable, operation: operation, detail: error.detail, sealing: error)
        }
    }

    private static func aboutAServer(_ record: KeptRecord, _ operation: String) throws(KeptError) -> SubjectHash {
        guard let subject = record.subject else {
            throw .refused(operation, "a \(record.kind) row is about a server, and this one names none")
        }
        return subject
    }

    @discardableResult
    private func write<T: Sendable>(
        _ operation: String, _ body: @Sendable (borrowing SQLiteTransaction) throws(SQLiteError) -> T
    ) async throws(KeptError) -> T {
        do {
            return try await database.write(body)
        } catch {
            throw .database(operation, error)
        }
    }

    private func read(
        _ operation: String, _ body: @Sendable (borrowing SQLiteTransaction) throws(SQLiteError) -> [SQLiteRow]
    ) async throws(KeptError) -> [KeptRecord] {
        let rows: [SQLiteRow]
        do {
            rows = try await database.read(body)
        } catch {
            throw .database(operation, error)
        }
        var records: [KeptRecord] = []
        for row in rows { records.append(try Self.record(row)) }
        return records
    }
}
