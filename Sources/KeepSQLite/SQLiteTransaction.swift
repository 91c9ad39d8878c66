internal import CSQLite

/// What a store's queries run on inside one transaction of a ``SQLiteDatabase``.
///
/// Handed to the body of ``SQLiteDatabase/write(_:)`` or ``SQLiteDatabase/read(_:)``
/// and valid only there: it cannot be copied out. Every statement is prepared, bound
/// with its values as parameters (never spliced into the text), stepped and finalized
/// before the call returns. In a read transaction, a statement that would write is
/// refused before it runs.
public struct SQLiteTransaction: ~Copyable {
    let connection: OpaquePointer
    let path: String
    let readOnly: Bool

    /// Runs one statement with `parameters` bound in order; answers the number of rows
    /// it inserted, updated or deleted.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        _ = try run(sql, parameters)
        return Int(sqlite3_changes64(connection))
    }

    /// Runs one query with `parameters` bound in order; answers every row.
    public func query(_ sql: String, _ parameters: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        try run(sql, parameters)
    }

    /// Runs one query with `parameters` bound in order, handing each row's columns to `body`
    /// in place as it is read: for a result too large to hold whole, or read too often to
    /// build every row (an index of tens of thousands of rows). An error `body` throws stops
    /// the query and is thrown from here.
    public func forEachRow(
        _ sql: String, _ parameters: [SQLiteValue] = [], _ body: (borrowing SQLiteColumns) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        try prepared(sql, parameters).forEachRow(body)
    }

    /// Runs one statement once for each list of parameters in `rows`, prepared once: for
    /// many rows of the same shape (a batch written to an index), where preparing each
    /// would cost more than running it. Answers the rows changed in all. Stops at, and
    /// throws, the first failure; what ran before it is undone with the transaction.
    @discardableResult
    public func executeMany(_ sql: String, _ rows: some Sequence<[SQLiteValue]>) throws(SQLiteError) -> Int {
        let statement = try checked(sql)
        var changed = 0
        for parameters in rows {
            try statement.bind(parameters)
            try statement.forEachRow { _ throws(SQLiteError) in }
            changed += Int(sqlite3_changes64(connection))
            statement.reset()
        }
        return changed
    }

    /// The rowid of the row the last successful insert on this connection made.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(connection) }

    private func run(_ sql: String, _ parameters: [SQLiteValue]) throws(SQLiteError) -> [SQLiteRow] {
        try prepared(sql, parameters).rows()
    }

    /// `sql` prepared, checked against the transaction's mode, and bound.
    private func prepared(_ sql: String, _ parameters: [SQLiteValue]) throws(SQLiteError) -> SQLiteStatement {
        let statement = try checked(sql)
        try statement.bind(parameters)
        return statement
    }

    /// `sql` prepared and checked against the transaction's mode.
    private func checked(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let statement = try SQLiteStatement(connection, sql, path: path)
        // A read transaction that wrote would need the write lock it did not take at
        // BEGIN, and in WAL mode that can fail with SQLITE_BUSY no timeout cures.
        if readOnly, !statement.isReadOnly {
            throw .refused(
                .sql, SQLITE_READONLY, operation: "prepare", path: path, sql: sql,
                "a read transaction cannot write; use write { } instead")
        }
        return statement
    }
}
