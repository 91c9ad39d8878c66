internal import CSQLite

/// A key/value table in SQLite, in WAL mode with `synchronous=FULL`, one row per
/// transaction: the store a developer would reach for instead of files, as a baseline.
///
/// `put` is one autocommitted `INSERT OR REPLACE`, so each call is one durable
/// transaction (the row appended to the log, then an fsync of the log). It is an actor on
/// one connection, as KeepSealed's database is: SQLite lets one writer at a time into a
/// database, so concurrent callers queue for the connection, which is the best it can do
/// (separate connections would add busy-wait sleeps, and threads a lock handoff per
/// commit). Every SQLite result is checked right after the call; statements are
/// finalized and the connection closed when the actor goes.
actor SQLiteKeyValue {
    nonisolated let path: String
    // `nonisolated(unsafe)` only so `deinit` can finalize and close them: the actor is
    // their one user, and in `deinit` nothing else can reach them.
    nonisolated(unsafe) private let connection: OpaquePointer
    nonisolated(unsafe) private let upsert: OpaquePointer
    nonisolated(unsafe) private let select: OpaquePointer

    /// Opens (creating) the database at `path` and its `kv` table.
    init(path: String) throws(BenchError) {
        self.path = path
        var opened: OpaquePointer?
        let result = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard result == SQLITE_OK, let connection = opened else {
            // A failed open may still have allocated a connection, which must be closed.
            let error = Self.failure(opened, result, "sqlite3_open_v2", path)
            sqlite3_close_v2(opened)
            throw error
        }
        do throws(BenchError) {
            // WAL and FULL: each commit appends to the log and fsyncs it before returning.
            try Self.expect(connection, "PRAGMA journal_mode = WAL", answers: "wal", path)
            try Self.expect(connection, "PRAGMA synchronous = FULL", answers: nil, path)
            try Self.expect(connection, "PRAGMA synchronous", answers: "2", path)
            try Self.expect(
                connection, "CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID", answers: nil,
                path)
            let upsert = try Self.prepare(connection, "INSERT OR REPLACE INTO kv (k, v) VALUES (?1, ?2)", path)
            do throws(BenchError) {
                select = try Self.prepare(connection, "SELECT v FROM kv WHERE k = ?1", path)
            } catch {
                sqlite3_finalize(upsert)
                throw error
            }
            self.upsert = upsert
        } catch {
            sqlite3_close_v2(connection)
            throw error
        }
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(upsert)
        sqlite3_finalize(select)
        // close_v2 cannot fail once every statement is finalized.
        sqlite3_close_v2(connection)
    }

    /// Stores `value` under `key` in a transaction of its own, durable when it returns.
    func put(_ key: String, _ value: [UInt8]) throws(BenchError) {
        // Reset on the way out, so the statement is ready for the next call and holds no lock.
        defer { sqlite3_reset(upsert) }
        try bind(upsert, key, value)
        let result = sqlite3_step(upsert)
        guard result == SQLITE_DONE else { throw Self.failure(connection, result, "sqlite3_step (INSERT)", path) }
    }

    /// The value under `key` copied out, as a store handing back a value would; nil when absent.
    func get(_ key: String) throws(BenchError) -> [UInt8]? {
        defer { sqlite3_reset(select) }
        try bind(select, key, nil)
        let result = sqlite3_step(select)
        if result == SQLITE_DONE { return nil }
        guard result == SQLITE_ROW else { throw Self.failure(connection, result, "sqlite3_step (SELECT)", path) }
        // The column's bytes are SQLite's until the reset: copy them before it.
        guard let text = sqlite3_column_text(select, 0) else { return [] }
        return Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(select, 0))))
    }

    /// Inserts `rows` in one transaction: set-up only.
    func fill(_ rows: [(key: String, value: [UInt8])]) throws(BenchError) {
        try Self.expect(connection, "BEGIN", answers: nil, path)
        for row in rows {
            try put(row.key, row.value)
        }
        try Self.expect(connection, "COMMIT", answers: nil, path)
    }

    /// Binds `key` (and `value` when given) as text. SQLITE_TRANSIENT (which Swift cannot
    /// spell: it is the destructor -1) makes SQLite copy each, because the Swift buffers
    /// are gone before the statement is stepped.
    private func bind(_ statement: OpaquePointer, _ key: String, _ value: [UInt8]?) throws(BenchError) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var result = key.withCString { sqlite3_bind_text(statement, 1, $0, -1, transient) }
        guard result == SQLITE_OK else { throw Self.failure(connection, result, "sqlite3_bind_text", path) }
        guard let value else { return }
        result = value.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(statement, 2, $0.baseAddress, Int32(buffer.count), transient)
            }
        }
        guard result == SQLITE_OK else { throw Self.failure(connection, result, "sqlite3_bind_text", path) }
    }

    /// Runs `sql` to the end and checks its first column answers `expected` (when given).
    private static func expect(
        _ connection: OpaquePointer, _ sql: String, answers expected: String?, _ path: String
    ) throws(BenchError) {
        let statement = try prepare(connection, sql, path)
        defer { sqlite3_finalize(statement) }
        var first: String?
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { break }
            guard result == SQLITE_ROW else { throw failure(connection, result, "sqlite3_step (\(sql))", path) }
            if first == nil, let text = sqlite3_column_text(statement, 0) { first = String(cString: text) }
        }
        if let expected, first?.lowercased() != expected {
            throw BenchError(.library, sql, "SQLite answered \(first ?? "nothing"), not \(expected), in \(path)")
        }
    }

    private static func prepare(
        _ connection: OpaquePointer, _ sql: String, _ path: String
    ) throws(BenchError)
        -> OpaquePointer
    {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw failure(connection, result, "sqlite3_prepare_v2 (\(sql))", path)
        }
        return statement
    }

    private static func failure(
        _ connection: OpaquePointer?, _ result: Int32, _ call: String, _ path: String
    )
        -> BenchError
    {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return BenchError(.library, call, "\(message ?? "SQLite error") (SQLite result \(result)) in \(path)")
    }
}
