internal import CSQLite

/// One row of a query's result, its columns in the order the query named them.
///
/// The typed accessors check what the disk actually holds: a column of another type, or
/// an index the query did not select, is a typed ``SQLiteError/Code/mismatch`` error
/// naming the column, never a crash and never a silent default.
public struct SQLiteRow: Sendable, Hashable {
    /// The columns, in the order the query named them; the typed accessors read them with a
    /// check.
    public let values: [SQLiteValue]

    /// The row holding `values`, in column order.
    public init(_ values: [SQLiteValue]) {
        self.values = values
    }

    /// The integer in column `index`.
    public func integer(_ index: Int) throws(SQLiteError) -> Int64 {
        guard case .integer(let value) = try value(index) else { throw mismatch(index, "an integer") }
        return value
    }

    /// The text in column `index`.
    public func text(_ index: Int) throws(SQLiteError) -> String {
        guard case .text(let value) = try value(index) else { throw mismatch(index, "text") }
        return value
    }

    /// The blob in column `index`.
    public func blob(_ index: Int) throws(SQLiteError) -> [UInt8] {
        guard case .blob(let value) = try value(index) else { throw mismatch(index, "a blob") }
        return value
    }

    /// The blob in column `index`, or `nil` when it is NULL.
    public func optionalBlob(_ index: Int) throws(SQLiteError) -> [UInt8]? {
        if case .null = try value(index) { return nil }
        return try blob(index)
    }

    /// The value in column `index`, whatever its type.
    public func value(_ index: Int) throws(SQLiteError) -> SQLiteValue {
        guard values.indices.contains(index) else {
            throw .refused(
                .mismatch, SQLITE_RANGE, operation: "read column", path: nil,
                "column \(index) was asked for; the row has \(values.count)")
        }
        return values[index]
    }

    private func mismatch(_ index: Int, _ expected: String) -> SQLiteError {
        .refused(
            .mismatch, SQLITE_MISMATCH, operation: "read column", path: nil,
            "column \(index) holds \(values[index].typeName), not \(expected)")
    }
}
