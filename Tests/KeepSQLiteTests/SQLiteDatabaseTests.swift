import Foundation
import KeepConformance
import KeepTestSupport
import Synchronization
import Testing

@testable import KeepSQLite

@Suite("The SQLite wrapper")
struct SQLiteDatabaseTests {
    @Test("opening sets WAL, synchronous=FULL and foreign keys, as read back from SQLite")
    func openingConfiguresTheConnection() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        // Pragma queries count as writes to SQLite, so they are asked in a write transaction.
        let answers = try await database.write { transaction throws(SQLiteError) in
            [
                try transaction.query("PRAGMA journal_mode")[0].value(0),
                try transaction.query("PRAGMA synchronous")[0].value(0),
                try transaction.query("PRAGMA foreign_keys")[0].value(0),
            ]
        }
        #expect(answers == [.text("wal"), .integer(2), .integer(1)])
    }

    @Test("the database file is readable by its owner only")
    func fileIsOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let database = try SQLiteDatabase(path: path)
        try await database.write { transaction throws(SQLiteError) in try transaction.execute("CREATE TABLE demo_t (v)")
        }
        for file in [path, path + "-wal"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
    }

    @Test(
        "bound parameters round-trip blobs, text, integers, reals and null exactly",
        arguments: [
            .blob([]), .blob([0, 0, 1, 0xff]), .blob((0..<65_536).map { UInt8(truncatingIfNeeded: $0) }),
            .text(""), .text("nul\u{0}inside"), .text("ünïcödé 🔑"), .text("'); DROP TABLE demo_values; --"),
            .integer(0), .integer(.min), .integer(.max), .real(-0.5), .null,
        ] as [SQLiteValue])
    func parametersRoundTrip(_ value: SQLiteValue) async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let rows = try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("CREATE TABLE demo_values (v)")
            try transaction.execute("INSERT INTO demo_values (v) VALUES (?)", [value])
            return try transaction.query("SELECT v, typeof(v) FROM demo_values")
        }
        #expect(rows == [SQLiteRow([value, .text(value.typeName)])])
    }

    @Test("a query read row by row hands each row in order, and an error of the body stops it")
    func rowByRow() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let seen = try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("CREATE TABLE t(n INTEGER)")
            for n in 1...5 { try transaction.execute("INSERT INTO t(n) VALUES(?)", [.integer(Int64(n))]) }
            var seen: [Int64] = []
            try transaction.forEachRow("SELECT n FROM t WHERE n > ? ORDER BY n", [.integer(1)]) {
                row throws(SQLiteError) in seen.append(try row.integer(0))
            }
            return seen
        }
        #expect(seen == [2, 3, 4, 5])
        let stopped: (Int, SQLiteError.Code?) = try await database.read { transaction throws(SQLiteError) in
            var count = 0
            do throws(SQLiteError) {
                try transaction.forEachRow("SELECT n FROM t ORDER BY n") { row throws(SQLiteError) in
                    count += 1
                    _ = try row.text(0)  // an integer column: a mismatch
                }
            } catch {
                return (count, error.code)
            }
            return (count, nil)
        }
        #expect(stopped.0 == 1 && stopped.1 == .mismatch, "the first row's error ends the query")
    }

    @Test("bad SQL is a typed error carrying SQLite's code, its message, the operation and the file")
    func badSQLIsATypedError() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        do {
            try await database.write { transaction throws(SQLiteError) in try transaction.execute("SELEKT 1") }
            Issue.record("bad SQL ran")
        } catch {
            #expect(error.code == .sql)
            #expect(error.resultCode == 1)
            #expect(error.operation == "prepare")
            #expect(error.message.contains("syntax error"))
            #expect(error.description.contains(database.path))
            // The statement is kept for a debugger, and never shown: no raw SQL reaches a user.
            #expect(error.sql?.contains("SELEKT 1") == true)
            #expect(!error.description.contains("SELEKT"), "\(error)")
        }
    }

    @Test("a constraint violation is a typed error with the extended code, and its transaction leaves nothing")
    func constraintViolationRollsBack() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("CREATE TABLE demo_t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)")
        }
        do {
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute("INSERT INTO demo_t (v) VALUES (?)", ["secret-value-1"])
                try transaction.execute("INSERT INTO demo_t (v) VALUES (?)", ["secret-value-1"])
            }
            Issue.record("a duplicate was inserted")
        } catch {
            #expect(error.code == .constraint)
            #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(!error.description.contains("secret-value-1"))
        }
        let count = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT count(*) FROM demo_t")[0].integer(0)
        }
        #expect(count == 0)
        // The pair: the same insert on its own succeeds.
        try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("INSERT INTO demo_t (v) VALUES (?)", ["secret-value-1"])
        }
    }

    @Test("text holding two statements is refused before either runs")
    func twoStatementsAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        try await database.write { transaction throws(SQLiteError) in try transaction.execute("CREATE TABLE demo_t (v)")
        }
        await #expect {
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute("INSERT INTO demo_t VALUES (1); DROP TABLE demo_t")
            }
        } throws: { ($0 as? SQLiteError)?.code == .sql }
        let count = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT count(*) FROM demo_t")[0].integer(0)
        }
        #expect(count == 0)
        // The pair: a trailing comment or semicolon is not a second statement.
        try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("INSERT INTO demo_t VALUES (1); -- the one row")
        }
    }

    @Test("a read transaction refuses a statement that writes, and reads freely")
    func readTransactionsDoNotWrite() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        try await database.write { transaction throws(SQLiteError) in try transaction.execute("CREATE TABLE demo_t (v)")
        }
        await #expect {
            try await database.read { transaction throws(SQLiteError) in
                try transaction.execute("INSERT INTO demo_t VALUES (1)")
            }
        } throws: { ($0 as? SQLiteError)?.resultCode == 8 }  // SQLITE_READONLY
        let rows = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT count(*) FROM demo_t")
        }
        #expect(rows == [SQLiteRow([.integer(0)])])
    }

    @Test("the wrong number of parameters is a typed error, never a silent NULL", arguments: [0, 1, 3])
    func parameterCountMustMatch(_ count: Int) async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("CREATE TABLE demo_t (a, b)")
        }
        let values = Array(repeating: SQLiteValue.integer(1), count: count)
        await #expect {
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute("INSERT INTO demo_t VALUES (?, ?)", values)
            }
        } throws: { ($0 as? SQLiteError)?.code == .mismatch }
        try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("INSERT INTO demo_t VALUES (?, ?)", [1, 2])
        }
    }

    @Test("a column read as the wrong type is a typed error naming the column")
    func wrongColumnTypeIsATypedError() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let row = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT 'text', x'00'")[0]
        }
        #expect(throws: SQLiteError.self) { try row.blob(0) }
        #expect(throws: SQLiteError.self) { try row.integer(1) }
        #expect(throws: SQLiteError.self) { try row.text(2) }
        #expect(try row.text(0) == "text")
        #expect(try row.blob(1) == [0])
    }

    @Test("columns read in place check their type, their index and their text as a row does")
    func columnsReadInPlaceAreChecked() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let sql = "SELECT 'text', 7, 2.5, NULL, x'00', CAST(x'ff' AS TEXT)"
        let (read, refusals) = try await database.read { transaction throws(SQLiteError) in
            var read: [String] = []
            var refusals: [SQLiteError.Code] = []
            try transaction.forEachRow(sql) { columns throws(SQLiteError) in
                read = [
                    try columns.text(0), "\(try columns.integer(1))", "\(try columns.value(2))",
                    "\(String(describing: try columns.optionalText(3)))", "\(try columns.blob(4))",
                ]
                // Each of these is a typed refusal, never a crash or a default.
                for attempt in 0..<7 {
                    do throws(SQLiteError) {
                        switch attempt {
                        case 0: _ = try columns.integer(0)
                        case 1: _ = try columns.text(1)
                        case 2: _ = try columns.blob(0)
                        case 3: _ = try columns.optionalText(4)
                        case 4: _ = try columns.integer(6)
                        case 5: _ = try columns.text(-1)
                        default: _ = try columns.text(5)
                        }
                    } catch {
                        refusals.append(error.code)
                    }
                }
            }
            return (read, refusals)
        }
        #expect(read == ["text", "7", "real(2.5)", "nil", "[0]"])
        #expect(
            refusals == Array(repeating: SQLiteError.Code.mismatch, count: 7),
            "the wrong type, a column not selected, not UTF-8")
    }

    @Test("a file that is not a database is a typed error, and is left as it was")
    func notADatabaseIsATypedError() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let junk = Data(repeating: 0x41, count: 4096)
        try junk.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SQLiteDatabase(path: path)
        } throws: { ($0 as? SQLiteError)?.code == .corrupt }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk)
    }

    @Test("a database in a missing directory is a typed error naming the file and the errno")
    func missingDirectoryIsATypedError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("missing/kept.sqlite")
        do {
            _ = try SQLiteDatabase(path: path)
            Issue.record("opened a database in a missing directory")
        } catch {
            #expect(error.systemErrno == ENOENT)
            #expect(error.description.contains(path))
        }
    }

    @Test(
        "a path that is not absolute is refused before anything is created", arguments: ["kept.sqlite", ":memory:", ""])
    func relativePathIsRefused(_ path: String) {
        #expect {
            _ = try SQLiteDatabase(path: path)
        } throws: { ($0 as? SQLiteError)?.message.contains("absolute") == true }
        #expect(path.isEmpty || !FileManager.default.fileExists(atPath: path))
    }

    // MARK: - Several connections at once

    @Test("without a busy timeout, a held write lock makes a second writer fail with SQLITE_BUSY")
    func heldLockWithoutTimeoutFails() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let creator = try SQLiteDatabase(path: path)
        try await creator.write { transaction throws(SQLiteError) in try transaction.execute("CREATE TABLE demo_t (v)")
        }
        let impatient = try SQLiteDatabase(path: path, busyTimeout: .zero)
        let holder = try await WriteLockHolder.hold(path, table: "demo_t")
        await #expect {
            try await impatient.write { transaction throws(SQLiteError) in
                try transaction.execute("INSERT INTO demo_t VALUES (1)")
            }
        } throws: { ($0 as? SQLiteError)?.code == .busy }
        holder.release()
        // The pair: once the lock is released, the same write succeeds.
        try await impatient.write { transaction throws(SQLiteError) in
            try transaction.execute("INSERT INTO demo_t VALUES (1)")
        }
    }

    @Test("connections waiting on another process's write lock hold up no thread of Swift's shared pool")
    func waitingHoldsNoPoolThread() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let creator = try SQLiteDatabase(path: path)
        try await creator.write { transaction throws(SQLiteError) in try transaction.execute("CREATE TABLE demo_t (v)")
        }
        let holder = try await WriteLockHolder.hold(path, table: "demo_t")
        // More waiting connections than the shared pool has threads: on the pool, they
        // would block every one of its threads until the lock was released.
        let waiters = ProcessInfo.processInfo.activeProcessorCount + 2
        let started = Arrivals(expected: waiters)
        let writes = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for value in 1...waiters {
                    // Waiting as long as the test takes: only the pool's progress is measured.
                    let database = try SQLiteDatabase(path: path, busyTimeout: .seconds(3600))
                    group.addTask {
                        started.arrive()
                        try await database.write { transaction throws(SQLiteError) in
                            try transaction.execute("INSERT INTO demo_t VALUES (?)", [.integer(Int64(value))])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        await started.all()
        // The pool still runs work while every waiter waits: more tasks than it has threads,
        // each finishing while the lock is still held.
        let ran = await withTaskGroup(of: Int.self) { group in
            for index in 0..<64 { group.addTask { index } }
            return await group.reduce(0) { count, _ in count + 1 }
        }
        #expect(ran == 64)
        let stillHeld = try await SQLiteTool.run(path, "SELECT count(*) FROM demo_t;")
        #expect(stillHeld == ["0"], "the other process's row is not committed yet: the lock was held throughout")
        holder.release()
        try await writes.value
        let rows = try await creator.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT count(*) FROM demo_t")
        }
        #expect(try rows.first?.integer(0) == Int64(waiters + 1))
    }

    @Test("a connection's work runs on a thread of its own, not on Swift's shared pool")
    func ownThread() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let mine = try await database.read { _ throws(SQLiteError) in database.isOnItsThread }
        #expect(mine)
        #expect(!database.isOnItsThread, "the pair: the test itself runs elsewhere")
    }

    @Test("two connections writing concurrently with BEGIN IMMEDIATE both succeed, thanks to the busy timeout")
    func concurrentWritersBothSucceed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let first = try SQLiteDatabase(path: path)
        try await first.write { transaction throws(SQLiteError) in
            try transaction.execute("CREATE TABLE demo_t (writer INTEGER, n INTEGER)")
        }
        let connections = [first, try SQLiteDatabase(path: path)]
        let rounds = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (writer, connection) in connections.enumerated() {
                group.addTask {
                    for round in 0..<rounds {
                        try await connection.write { transaction throws(SQLiteError) in
                            // Read then write in one transaction: the pattern that fails
                            // with SQLITE_BUSY_SNAPSHOT unless the lock is taken at BEGIN.
                            let seen = try transaction.query("SELECT count(*) FROM demo_t")[0].integer(0)
                            try transaction.execute(
                                "INSERT INTO demo_t VALUES (?, ?)", [.integer(Int64(writer)), .integer(seen)])
                        }
                        if round % 50 == 0 { await Task.yield() }
                    }
                }
            }
            try await group.waitForAll()
        }
        let rows = try await first.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT n FROM demo_t ORDER BY rowid")
        }
        #expect(rows.count == rounds * connections.count)
        // Each transaction saw every row committed before it: the counts run 0, 1, 2, ...
        #expect(
            try rows.enumerated().allSatisfy { index, row throws(SQLiteError) in try row.integer(0) == Int64(index) })
    }

    // MARK: - The sqlite3 tool

    @Test("the sqlite3 command-line tool opens a database the wrapper wrote and finds it intact")
    func sqliteToolReadsTheDatabase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let database = try SQLiteDatabase(path: path)
        try await database.migrate(DemoOwner.schema)
        try await database.write { transaction throws(SQLiteError) in
            for n in 0..<100 {
                try transaction.execute(
                    "INSERT INTO demo_rows (kind, subject, version, sealed) VALUES (?, ?, 1, ?)",
                    ["models", .blob(Array(repeating: UInt8(n), count: 32)), .blob(Array(repeating: 7, count: 200))])
            }
        }
        let output = try await SQLiteTool.run(
            path,
            """
            PRAGMA integrity_check;
            PRAGMA journal_mode;
            SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name;
            SELECT count(*) FROM demo_rows;
            """)
        #expect(output == ["ok", "wal", "demo_rows", "keep_migrations", "100"])
    }
}

/// The waiters that have started, awaited without holding a thread: the test must not spin
/// on a pool it shares with them.
private final class Arrivals: Sendable {
    private let state: Mutex<(count: Int, waiting: CheckedContinuation<Void, Never>?)>
    private let expected: Int

    init(expected: Int) {
        self.expected = expected
        state = Mutex((0, nil))
    }

    func arrive() {
        let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.count += 1
            guard state.count == expected else { return nil }
            defer { state.waiting = nil }
            return state.waiting
        }
        ready?.resume()
    }

    /// Returns once every expected waiter has arrived.
    func all() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.count >= expected { return true }
                state.waiting = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
