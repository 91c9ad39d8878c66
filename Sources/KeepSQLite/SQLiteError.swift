internal import CSQLite
import KeepPorts

/// A failure of the kept-data database, saying what failed and never a stored value.
///
/// `code` is what a caller switches on; the rest is for the person reading the message:
/// the operation (`"open"`, `"prepare"`, `"step"`, `"migrate engines 2"`), the file, the
/// statement's text (values are always bound, so the text never holds one), SQLite's
/// result and extended codes, its message, and the errno behind an I/O failure.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case busy, constraint, full, unavailable, corrupt, refused, mismatch, newerSchema, divergedSchema, sql, io
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// Another connection held the lock past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        public static let busy = Code(.busy)
        /// A constraint refused the change (`SQLITE_CONSTRAINT`): unique, not null, check, foreign key.
        public static let constraint = Code(.constraint)
        /// The disk is full (`SQLITE_FULL`, or an I/O error with `ENOSPC`/`EDQUOT`).
        public static let full = Code(.full)
        /// The file may not be opened or written (`SQLITE_READONLY`, `SQLITE_PERM`, or an
        /// open or I/O error with `EACCES`/`EPERM`/`EROFS`).
        public static let unavailable = Code(.unavailable)
        /// The file is damaged or not a database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
        public static let corrupt = Code(.corrupt)
        /// A wall refused the statement (`SQLITE_AUTH`): a migration that reaches outside
        /// its owner's tables, or an owner whose name cannot be a table prefix.
        public static let refused = Code(.refused)
        /// A value of the wrong type, or the wrong number of parameters (`SQLITE_MISMATCH`, `SQLITE_RANGE`).
        public static let mismatch = Code(.mismatch)
        /// The database was migrated by a newer build than this one.
        public static let newerSchema = Code(.newerSchema)
        /// The migrations this database records are not the code's: one was renamed,
        /// reordered or removed since it ran (its recorded name differs from the name the
        /// code gives that version).
        public static let divergedSchema = Code(.divergedSchema)
        /// The statement itself is wrong (`SQLITE_ERROR`, `SQLITE_MISUSE`): bad SQL, a
        /// missing table, two statements where one was expected, a write in a read.
        public static let sql = Code(.sql)
        /// Any other failure, including I/O errors.
        public static let io = Code(.io)

        /// The code's name, as a message or a report shows it: `busy`, `constraint`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on, derived from SQLite's
    /// result code unless given.
    public let code: Code
    /// The operation that failed.
    public let operation: String
    /// The database file, when there is one.
    public let path: String?
    /// The statement's text; it never holds a value, since values are bound.
    public let sql: String?
    /// SQLite's primary result code (`SQLITE_BUSY` is 5).
    public let resultCode: Int32
    /// SQLite's extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067).
    public let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`), or ours where the wrapper refused.
    public let message: String
    /// The errno behind an I/O failure (`sqlite3_system_errno`), when there was one.
    public let systemErrno: Int32?

    /// The error for `operation`, from SQLite's extended result code (the primary code is
    /// its low byte). Pass `code` only where the wrapper, not SQLite, refused.
    public init(
        operation: String, path: String?, sql: String? = nil, extendedCode: Int32, message: String,
        systemErrno: Int32? = nil, code: Code? = nil
    ) {
        self.operation = operation
        self.path = path
        self.sql = sql
        self.resultCode = extendedCode & 0xff
        self.extendedCode = extendedCode
        self.message = message
        self.systemErrno = systemErrno
        self.code = code ?? Self.code(for: extendedCode & 0xff, errno: systemErrno)
    }

    /// `step in /data/kept.sqlite failed: the database file is damaged: database disk image
    /// is malformed (SQLite 11/11)`: what happened in plain words, never the statement's text
    /// (``sql`` keeps it for a debugger), so no raw SQL reaches a user.
    public var description: String {
        var text = operation
        if let path { text += " in \(path)" }
        text += " failed: \(Self.plain[code] ?? code.description)"
        // A statement of keep's own that SQLite refused quotes the statement: left out.
        if code != .sql { text += ": \(message)" }
        text += " (SQLite \(resultCode)/\(extendedCode)"
        if let systemErrno { text += ", errno \(systemErrno)" }
        return text + ")"
    }

    /// Each code in words a user can act on: the one table of them.
    private static let plain: [Code: String] = [
        .busy: "another keep held the database for too long",
        .constraint: "the database refused a change that breaks its rules",
        .full: "the disk is full",
        .unavailable: "the database file may not be opened or written",
        .corrupt: "the database file is damaged",
        .refused: "a change reached outside its owner's tables and was refused",
        .mismatch: "a value of the wrong kind",
        .newerSchema: "a newer build of keep has changed this database",
        .sql: "keep's own statement was refused (a bug in keep; please report it)",
        .io: "an input/output error",
    ]

    /// The code for a primary result code; an errno behind an open or I/O failure is
    /// mapped the one way every adapter maps it (``StorageError/Code/init(errno:)``).
    private static func code(for result: Int32, errno: Int32?) -> Code {
        switch result {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CONSTRAINT: return .constraint
        case SQLITE_FULL: return .full
        case SQLITE_READONLY, SQLITE_PERM: return .unavailable
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt
        case SQLITE_AUTH: return .refused
        case SQLITE_MISMATCH, SQLITE_RANGE: return .mismatch
        case SQLITE_ERROR, SQLITE_MISUSE: return .sql
        case SQLITE_IOERR, SQLITE_CANTOPEN:
            let mapped = errno.map(StorageError.Code.init(errno:))
            if mapped == .full { return .full }
            if mapped == .unavailable { return .unavailable }
            return .io
        default: return .io
        }
    }
}

extension SQLiteError {
    /// The error SQLite reported for `result` on `connection`, with its message and the
    /// errno behind an I/O failure. Connections run with extended result codes on, so
    /// `result` is the extended code.
    static func last(
        _ connection: OpaquePointer?, _ result: Int32, operation: String, path: String?, sql: String? = nil
    ) -> SQLiteError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        let errno = connection.map { sqlite3_system_errno($0) } ?? 0
        return SQLiteError(
            operation: operation, path: path, sql: sql, extendedCode: result,
            message: message ?? String(cString: sqlite3_errstr(result)), systemErrno: errno != 0 ? errno : nil)
    }

    /// An error of the wrapper's own, for a call SQLite would accept but we refuse.
    static func refused(
        _ code: Code, _ result: Int32, operation: String, path: String?, sql: String? = nil, _ message: String
    ) -> SQLiteError {
        SQLiteError(operation: operation, path: path, sql: sql, extendedCode: result, message: message, code: code)
    }
}
