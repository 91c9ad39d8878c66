internal import CSQLite
import KeepPorts

/// The row a query stands on, its columns read in place: no row is built, and only the
/// columns asked for are turned into Swift values.
///
/// Handed to the body of ``SQLiteTransaction/forEachRow(_:_:_:)`` and valid only there,
/// for the row it was handed with (it cannot be copied out). The typed accessors check what
/// the disk actually holds, as ``SQLiteRow``'s do: a column of another type, an index the
/// query did not select, or text that is not UTF-8 is a typed
/// ``SQLiteError/Code/mismatch`` error naming the column, never a crash and never a silent
/// default.
public struct SQLiteColumns: ~Copyable {
    let handle: OpaquePointer
    let connection: OpaquePointer
    let path: String
    let sql: String

    /// How many columns the query selects.
    public var count: Int { Int(sqlite3_column_count(handle)) }

    /// The integer in column `index`.
    public func integer(_ index: Int) throws(SQLiteError) -> Int64 {
        try expect(SQLITE_INTEGER, index, "an integer")
        return sqlite3_column_int64(handle, Int32(index))
    }

    /// The blob in column `index`.
    public func blob(_ index: Int) throws(SQLiteError) -> [UInt8] {
        try withBlob(index) { Array($0) }
    }

    /// The blob in column `index`, handed to `body` where SQLite holds it (valid only
    /// there): for a row read too often to copy each blob.
    public func withBlob<Result>(
        _ index: Int, _ body: (UnsafeRawBufferPointer) throws(SQLiteError) -> Result
    ) throws(SQLiteError) -> Result {
        try expect(SQLITE_BLOB, index, "a blob")
        let column = Int32(index)
        let blob = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        // A zero-length blob comes back as a NULL pointer and is still an empty blob; a
        // NULL pointer with bytes to give is SQLite out of memory.
        guard blob != nil || count == 0 else {
            throw .last(connection, SQLITE_NOMEM, operation: "read column", path: path, sql: sql)
        }
        return try body(UnsafeRawBufferPointer(start: blob, count: count))
    }

    /// The text in column `index`.
    public func text(_ index: Int) throws(SQLiteError) -> String {
        try expect(SQLITE_TEXT, index, "text")
        return try validatedText(index)
    }

    /// The text in column `index`, or `nil` when it is NULL.
    public func optionalText(_ index: Int) throws(SQLiteError) -> String? {
        try type(index) == SQLITE_NULL ? nil : text(index)
    }

    /// The value in column `index`, whatever its type.
    public func value(_ index: Int) throws(SQLiteError) -> SQLiteValue {
        let column = Int32(index)
        // The type first, then the bytes, then their length: the order SQLite documents,
        // so no conversion happens behind our back.
        switch try type(index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(try validatedText(index))
        case SQLITE_BLOB: return .blob(try withBlob(index) { Array($0) })
        default: return .null
        }
    }

    /// The column's SQLite type, once `index` is checked to be one the query selects.
    private func type(_ index: Int) throws(SQLiteError) -> Int32 {
        guard index >= 0, index < count else {
            throw .refused(
                .mismatch, SQLITE_RANGE, operation: "read column", path: path, sql: sql,
                "column \(index) was asked for; the row has \(count)")
        }
        return sqlite3_column_type(handle, Int32(index))
    }

    private func expect(_ expected: Int32, _ index: Int, _ name: String) throws(SQLiteError) {
        let type = try type(index)
        guard type == expected else { throw mismatch(index, name) }
    }

    /// Column `index`'s text, checked to be UTF-8.
    private func validatedText(_ index: Int) throws(SQLiteError) -> String {
        // Text is never a NULL pointer (an empty string is ""), except when SQLite ran out
        // of memory converting it.
        guard let text = sqlite3_column_text(handle, Int32(index)) else {
            throw .last(connection, SQLITE_NOMEM, operation: "read column", path: path, sql: sql)
        }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, Int32(index))))
        guard let string = String(checkedUTF8: bytes) else {
            throw .refused(
                .mismatch, SQLITE_MISMATCH, operation: "read column", path: path, sql: sql,
                "column \(index) holds text that is not UTF-8")
        }
        return string
    }

    private func mismatch(_ index: Int, _ expected: String) -> SQLiteError {
        // What the column holds, named as a row's value names it.
        let held = (try? value(index))?.typeName ?? "unreadable"
        return .refused(
            .mismatch, SQLITE_MISMATCH, operation: "read column", path: path, sql: sql,
            "column \(index) holds \(held), not \(expected)")
    }
}
