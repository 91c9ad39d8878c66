internal import CSQLite

/// One prepared statement on a connection: bound, stepped, and finalized when it goes away.
///
/// Non-copyable, so exactly one owner finalizes it (in `deinit`), on every path.
struct SQLiteStatement: ~Copyable {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    private let path: String
    let sql: String

    /// Prepares the one statement in `sql`: text holding a second statement is refused
    /// (`execute` and `query` run exactly what they are given), and so is blank text.
    init(_ connection: OpaquePointer, _ sql: String, path: String) throws(SQLiteError) {
        var prepared: OpaquePointer?
        var remainder: String?
        let result = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            // prepare_v2: the statement recompiles itself after a schema change instead
            // of failing with SQLITE_SCHEMA.
            let result = sqlite3_prepare_v2(connection, text, -1, &prepared, &tail)
            if result == SQLITE_OK, let tail { remainder = String(cString: tail) }
            return result
        }
        guard result == SQLITE_OK else { throw .last(connection, result, operation: "prepare", path: path, sql: sql) }
        guard let prepared else {
            throw .refused(.sql, SQLITE_MISUSE, operation: "prepare", path: path, sql: sql, "no statement in the text")
        }
        // Anything after the first statement must be blank or a comment: preparing it
        // gives no statement.
        do throws(SQLiteError) {
            if let remainder, try Self.holdsStatement(connection, remainder, path: path) {
                throw .refused(
                    .sql, SQLITE_MISUSE, operation: "prepare", path: path, sql: sql,
                    "more than one statement in the text; run them one at a time")
            }
        } catch {
            sqlite3_finalize(prepared)
            throw error
        }
        self.handle = prepared
        self.connection = connection
        self.path = path
        self.sql = sql
    }

    deinit {
        // finalize answers the error of the statement's last step, already reported there;
        // it always frees the statement.
        sqlite3_finalize(handle)
    }

    /// Whether the statement only reads (`sqlite3_stmt_readonly`).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// Binds `values` to the parameters in order; the count must match exactly.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == values.count else {
            throw .refused(
                .mismatch, SQLITE_RANGE, operation: "bind", path: path, sql: sql,
                "the statement takes \(expected) parameters; \(values.count) were given")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null:
                result = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                result = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                result = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                // SQLITE_TRANSIENT: SQLite copies the bytes now, so they need not outlive
                // the call. The explicit length keeps an embedded NUL.
                result = text.withCString {
                    sqlite3_bind_text64(handle, index, $0, UInt64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
                }
            case .blob(let bytes) where bytes.isEmpty:
                // A blob bound from no pointer would be NULL: an empty blob is a zero-length one.
                result = sqlite3_bind_zeroblob(handle, index, 0)
            case .blob(let bytes):
                result = bytes.withUnsafeBytes {
                    sqlite3_bind_blob64(handle, index, $0.baseAddress, UInt64($0.count), Self.transient)
                }
            }
            guard result == SQLITE_OK else { throw .last(connection, result, operation: "bind", path: path, sql: sql) }
        }
    }

    /// Runs the statement to the end, collecting every row.
    func rows() throws(SQLiteError) -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try forEachRow { columns throws(SQLiteError) in
            var values: [SQLiteValue] = []
            values.reserveCapacity(columns.count)
            for column in 0..<columns.count { values.append(try columns.value(column)) }
            rows.append(SQLiteRow(values))
        }
        return rows
    }

    /// Runs the statement to the end, handing each row's columns to `body` in place.
    func forEachRow(_ body: (borrowing SQLiteColumns) throws(SQLiteError) -> Void) throws(SQLiteError) {
        let columns = SQLiteColumns(handle: handle, connection: connection, path: path, sql: sql)
        while true {
            let result = sqlite3_step(handle)
            switch result {
            case SQLITE_DONE: return
            case SQLITE_ROW: try body(columns)
            default: throw .last(connection, result, operation: "step", path: path, sql: sql)
            }
        }
    }

    /// Makes the statement ready to be bound and run again: its last run reset
    /// (`sqlite3_reset`, whose answer repeats the last step's error, already reported) and
    /// its parameters cleared.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Whether `text` holds a statement (not just blanks and comments).
    private static func holdsStatement(
        _ connection: OpaquePointer, _ text: String, path: String
    ) throws(SQLiteError) -> Bool {
        var prepared: OpaquePointer?
        let result = sqlite3_prepare_v2(connection, text, -1, &prepared, nil)
        // Never stepped, so finalize has no error to repeat; it frees the statement.
        defer { sqlite3_finalize(prepared) }
        guard result == SQLITE_OK else { throw .last(connection, result, operation: "prepare", path: path, sql: text) }
        return prepared != nil
    }

    /// SQLite's "copy the bytes now" destructor marker.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
