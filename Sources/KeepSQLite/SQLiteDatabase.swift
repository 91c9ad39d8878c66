internal import CSQLite
import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection to the kept-data database, opened for several processes at once.
///
/// Opening promises: the file is created readable by its owner only; the journal is
/// write-ahead (`WAL`, checked by reading it back), every commit reaches the disk
/// (`synchronous=FULL`, read back), foreign keys are enforced (read back), results carry
/// SQLite's extended codes, and a connection that finds the database locked waits up to
/// `busyTimeout` instead of failing with "database is locked" — including on the
/// `BEGIN IMMEDIATE` that every write starts with.
///
/// Work runs in transactions: ``write(_:)`` takes the write lock at `BEGIN IMMEDIATE`,
/// so it can never fail half-way for want of it; ``read(_:)`` sees one consistent
/// snapshot. A body that throws rolls its transaction back. Every SQLite result is
/// checked; failures are ``SQLiteError``s with the operation, the file, the statement's
/// text, the result and extended codes and SQLite's message.
///
/// A body states its error type (Swift infers `any Error` for a closure otherwise):
///
/// ```swift
/// let rows = try await database.read { transaction throws(SQLiteError) in
///     try transaction.query("SELECT sealed FROM engines_readings WHERE subject = ?", [SQLiteValue(subject)])
/// }
/// ```
///
/// The connection's work runs on a thread of its own (the actor's executor is a
/// `DedicatedThread`: what must stay on one thread, or may wait without bound, gets a thread
/// of its own), never on Swift's shared cooperative pool: a commit waiting for the disk, or
/// a busy wait for another process's lock, holds up that thread alone.
public actor SQLiteDatabase {
    /// The database file.
    public nonisolated let path: String
    /// The thread every call on this connection runs on.
    private nonisolated let thread: DedicatedThread

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    /// Whether the caller runs on this connection's own thread.
    nonisolated var isOnItsThread: Bool { thread.isCurrent }
    /// The sqlite3 handle. `nonisolated(unsafe)` only so `deinit` can close it: the actor
    /// is the one user of the handle, and in `deinit` nothing else can reach it.
    nonisolated(unsafe) let connection: OpaquePointer

    /// Opens (creating if needed) the database file at the absolute `path`; throws a
    /// typed error naming the file and SQLite's code when it cannot be opened or
    /// configured, or when `path` is not absolute (a relative path would depend on the
    /// working directory, and `:memory:` is not a file).
    ///
    /// `durable: false` is for a cache that can be rebuilt from elsewhere: commits are
    /// flushed only at checkpoints (`synchronous=NORMAL`), so a power cut may lose the
    /// latest commits (never corrupt the file); everything else is the same.
    public init(path: String, busyTimeout: Duration = .seconds(30), durable: Bool = true) throws(SQLiteError) {
        guard path.hasPrefix("/") else {
            throw .refused(.io, SQLITE_CANTOPEN, operation: "open", path: path, "the database path must be absolute")
        }
        try Self.createOwnerOnly(path)
        var handle: OpaquePointer?
        // NOMUTEX: no lock around every call (a listing of ten thousand rows made a third of
        // a million of them): the connection is used by one thread at a time, its own
        // (the actor's serial executor), after `init` and before `deinit`.
        // EXRESCODE: even a failed open answers an extended code.
        // NOFOLLOW: a symbolic link planted at the database's name is refused, never followed.
        let flags =
            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
            | SQLITE_OPEN_NOFOLLOW
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let error = SQLiteError.last(handle, result, operation: "open", path: path)
            // A failed open may still have allocated a connection; it must be closed.
            sqlite3_close_v2(handle)
            throw error
        }
        do {
            try Self.configure(handle, path: path, busyTimeout: busyTimeout, durable: durable)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
        self.path = path
        self.connection = handle
        self.thread = DedicatedThread(name: "keep.sqlite")
    }

    deinit {
        // close_v2 never fails for a connection whose statements are all finalized, and
        // every statement here is finalized before the call that made it returns.
        sqlite3_close_v2(connection)
        thread.stop()
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE` … `COMMIT`) and answers its
    /// result; if `body` or the commit throws, everything it did is rolled back.
    @discardableResult
    public func write<T: Sendable>(
        _ body: (borrowing SQLiteTransaction) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        try transaction("BEGIN IMMEDIATE", readOnly: false, body)
    }

    /// Runs `body` in a read transaction over one consistent snapshot; a statement in it
    /// that would write is refused.
    @discardableResult
    public func read<T: Sendable>(
        _ body: (borrowing SQLiteTransaction) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        try transaction("BEGIN DEFERRED", readOnly: true, body)
    }

    // MARK: - Private

    private func transaction<T>(
        _ begin: String, readOnly: Bool, _ body: (borrowing SQLiteTransaction) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        try execute(begin)
        do {
            // Bound to a local first: passing the non-copyable temporary straight to `body`
            // crashes Swift 6.3's optimiser (-O) when it specialises the caller.
            let transaction = SQLiteTransaction(connection: connection, path: path, readOnly: readOnly)
            let result = try body(transaction)
            try execute("COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Rolls back the open transaction, if one is still open.
    private func rollback() {
        // A failed statement may already have rolled the transaction back (a full disk,
        // an I/O error): only one still open is rolled back.
        guard sqlite3_get_autocommit(connection) == 0 else { return }
        // If ROLLBACK itself fails, the error that led here is the one worth reporting;
        // the transaction stays open and the next BEGIN reports it.
        _ = try? execute("ROLLBACK")
    }

    private func execute(_ sql: String) throws(SQLiteError) {
        _ = try SQLiteStatement(connection, sql, path: path).rows()
    }

    /// Creates the file with mode 0600 when it does not exist yet, so that SQLite (which
    /// gives its `-wal` and `-shm` files the database's mode) never makes any of them
    /// readable by others.
    ///
    /// An existing file is never opened here: closing any descriptor of a file drops every
    /// POSIX lock this process holds on it, so opening and closing the database while
    /// another connection of this process has it open would strip that connection's
    /// locks, and another process could then take the WAL from under it. `O_EXCL` opens
    /// only a file it has just created, which no connection can hold yet.
    private static func createOwnerOnly(_ path: String) throws(SQLiteError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let error = errno
            // Already there: SQLite opens it as it is.
            if error == EEXIST { return }
            throw SQLiteError(
                operation: "create", path: path, extendedCode: SQLITE_CANTOPEN,
                message: String(cString: strerror(error)), systemErrno: error)
        }
        // Nothing was written, so a failing close loses nothing; SQLite opens the file next.
        _ = close(descriptor)
    }

    /// The settings every connection runs with, each read back where SQLite can
    /// silently decline (journal_mode answers the mode it actually chose).
    private static func configure(
        _ connection: OpaquePointer, path: String, busyTimeout: Duration, durable: Bool
    ) throws(SQLiteError) {
        var result = sqlite3_extended_result_codes(connection, 1)
        guard result == SQLITE_OK else {
            throw .last(connection, result, operation: "extended result codes", path: path)
        }
        // The busy handler: a locked database is retried, with growing sleeps, until the
        // timeout, instead of failing at once. Set first, so the pragmas below wait too.
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        result = sqlite3_busy_timeout(connection, Int32(clamping: milliseconds))
        guard result == SQLITE_OK else { throw .last(connection, result, operation: "busy timeout", path: path) }

        let settings: [(set: String, check: String, expected: SQLiteValue)] = [
            ("PRAGMA journal_mode = WAL", "PRAGMA journal_mode", "wal"),
            durable
                ? ("PRAGMA synchronous = FULL", "PRAGMA synchronous", 2)
                : ("PRAGMA synchronous = NORMAL", "PRAGMA synchronous", 1),
            ("PRAGMA foreign_keys = ON", "PRAGMA foreign_keys", 1),
        ]
        for setting in settings {
            _ = try SQLiteStatement(connection, setting.set, path: path).rows()
            let answer = try SQLiteStatement(connection, setting.check, path: path).rows()
            guard answer.first?.values.first == setting.expected else {
                throw .refused(
                    .io, SQLITE_ERROR, operation: "configure", path: path, sql: setting.set,
                    "SQLite declined: \(setting.check) answers \(answer.first?.values.first.map(String.init(describing:)) ?? "nothing")"
                )
            }
        }
    }
}

// MARK: - SQLite's own check, made without changing the file

extension SQLiteDatabase {
    /// What SQLite's own check (`PRAGMA quick_check`) finds wrong in the database file at
    /// `path`, made without changing it: empty when it answers `ok`, else up to `limit` of
    /// its lines.
    ///
    /// The file is opened read-only (`SQLITE_OPEN_READONLY`: no write, no checkpoint of
    /// its WAL, no recovery that rewrites it) and never through a symbolic link
    /// (`SQLITE_OPEN_NOFOLLOW`); it is never created. Throws when the file cannot be opened
    /// or checked at all (absent, refused, a symbolic link); a file that is not a database,
    /// or one too damaged to check, is ``SQLiteError/Code/corrupt``.
    public static func quickCheckProblems(at path: String, limit: Int = 10) throws(SQLiteError) -> [String] {
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
