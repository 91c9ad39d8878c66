import Foundation
import KeepConformance
import KeepSQLite
import KeepTestSupport
import Testing

@Suite("SQLite locks with several connections in one process")
struct SQLiteLocksTests {
    @Test(
        "opening a second connection keeps the first one's locks, so another process never takes the WAL from under it")
    func secondConnectionKeepsLocks() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let first = try SQLiteDatabase(path: path)
        try await first.write { transaction throws(SQLiteError) in
            try transaction.execute("CREATE TABLE demo_rows (v INTEGER)")
            try transaction.execute("INSERT INTO demo_rows VALUES (1)")
        }
        let second = try SQLiteDatabase(path: path)
        // Another process reads and closes. Had the first connection lost its locks, the
        // tool would take itself for the last connection and fold away the WAL the first
        // one still writes to.
        #expect(try await SQLiteTool.run(path, "SELECT count(*) FROM demo_rows;") == ["1"])
        try await first.write { transaction throws(SQLiteError) in
            try transaction.execute("INSERT INTO demo_rows VALUES (2)")
        }
        #expect(try await SQLiteTool.run(path, "SELECT count(*) FROM demo_rows;") == ["2"])
        let seen = try await second.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT count(*) FROM demo_rows")
        }
        #expect(try seen.first?.integer(0) == 2)
    }
}
