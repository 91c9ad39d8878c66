internal import CSQLite

/// SQLite's own check of a database file (`PRAGMA quick_check`), made without changing it.
///
/// The file is opened read-only (`SQLITE_OPEN_READONLY`: no write, no checkpoint of its
/// WAL, no recovery that rewrites it) and never through a symbolic link
/// (`SQLITE_OPEN_NOFOLLOW`); it is never created. A file that is not a database at all,
/// or one too damaged to open, is a ``SQLiteError`` with ``SQLiteError/Code/corrupt``,
/// as it is for every other caller.
public enum SQLiteQuickCheck {
    /// What `quick_check` found wrong in the database at `path`: empty when it answered
    /// `ok`, else up to `limit` of its lines. Throws when the file cannot be opened or
    /// checked at all (absent, refused, not a database).
    public static func problems(at path: String, limit: Int = 10) throws(SQLiteError) -> [String] {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE
        let opened = sqlite3_open_v2(path, &handle, flags, nil)
        // A failed open may still have allocated a connection; it is closed either way.
        defer { sqlite3_close_v2(handle) }
        guard opened == SQLITE_OK, let handle else {
            throw .last(handle, opened, operation: "open for a check", path: path)
        }
        // Another keep writing meanwhile holds its lock only briefly: wait for it.
        _ = sqlite3_busy_timeout(handle, 5000)
        let statement = try SQLiteStatement(handle, "PRAGMA quick_check(\(max(1, limit)))", path: path)
        var lines: [String] = []
        for row in try statement.rows() {
            let line = try row.text(0)
            if line != "ok" { lines.append(line) }
        }
        return lines
    }
}
