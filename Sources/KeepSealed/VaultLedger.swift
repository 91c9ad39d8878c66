import KeepSQLite

/// The vault's bookkeeping in the kept-data database: one row saying which key the rows
/// are sealed under (a key check, never the key) and whether a notice is owed, and the
/// one query that clears every owner's rows.
///
/// Every method runs inside a transaction its caller holds.
enum VaultLedger {
    struct Record: Sendable {
        let keyCheck: [UInt8]
        let notice: KeyLossNotice?
    }

    static func prepare(_ transaction: borrowing SQLiteTransaction) throws(SQLiteError) {
        try transaction.execute(
            """
            CREATE TABLE IF NOT EXISTS keep_vault (
                id INTEGER PRIMARY KEY CHECK (id = 1), key_check BLOB NOT NULL,
                notice TEXT, rows_cleared INTEGER NOT NULL DEFAULT 0) STRICT
            """)
    }

    static func record(_ transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> Record? {
        let rows = try transaction.query("SELECT key_check, notice, rows_cleared FROM keep_vault WHERE id = 1")
        guard let row = rows.first else { return nil }
        let notice: KeyLossNotice? =
            switch try row.value(1) {
            case .text(let reason):
                // A reason this build does not know (a newer build wrote it) is still a
                // notice owed; it is told in the words for a missing key.
                KeyLossNotice(
                    reason: KeyLossNotice.Reason(rawValue: reason) ?? .keyMissing,
                    rowsCleared: Int(try row.integer(2)))
            default: nil
            }
        return Record(keyCheck: try row.blob(0), notice: notice)
    }

    static func save(_ record: Record, _ transaction: borrowing SQLiteTransaction) throws(SQLiteError) {
        try transaction.execute(
            """
            INSERT INTO keep_vault (id, key_check, notice, rows_cleared) VALUES (1, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                key_check = excluded.key_check, notice = excluded.notice, rows_cleared = excluded.rows_cleared
            """,
            [
                .blob(record.keyCheck), record.notice.map { .text($0.reason.rawValue) } ?? .null,
                .integer(Int64(record.notice?.rowsCleared ?? 0)),
            ])
    }

    static func clearNotice(_ transaction: borrowing SQLiteTransaction) throws(SQLiteError) {
        try transaction.execute("UPDATE keep_vault SET notice = NULL, rows_cleared = 0 WHERE id = 1")
    }

    /// Deletes every row of every owner's table (every table but Keep's bookkeeping and
    /// SQLite's own), keeping the tables and their migrations; answers how many rows went.
    static func clearOwnerRows(_ transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> Int {
        // Foreign keys are checked at commit, not per table: the order of deletes between
        // an owner's related tables then does not matter.
        try transaction.execute("PRAGMA defer_foreign_keys = ON")
        let tables = try transaction.query(
            """
            SELECT name FROM sqlite_schema WHERE type = 'table'
            AND name NOT LIKE 'keep\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            """)
        var cleared = 0
        for table in tables {
            // A table name cannot be a bound parameter: it is quoted as an identifier
            // (any double quote doubled), and it comes from the schema, never from input.
            let name = try table.text(0)
            let identifier =
                "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
            cleared += try transaction.execute("DELETE FROM \(identifier)")
        }
        return cleared
    }
}
