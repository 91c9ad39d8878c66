import Foundation
import KeepConformance
import KeepSQLite
import KeepTestSupport
import Testing

/// The kept-data database is never reached through a symbolic link, and is checked without
/// being changed.
@Suite("The database file's edges")
struct SQLiteQuickCheckTests {
    @Test("a database file that is a symbolic link is refused, never followed; a real one opens")
    func aSymlinkedDatabaseIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let real = directory.appending("real.sqlite")
        _ = try SQLiteDatabase(path: real)
        let link = directory.appending("kept.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        #expect(throws: SQLiteError.self) { _ = try SQLiteDatabase(path: link) }
        #expect(throws: SQLiteError.self) { _ = try SQLiteDatabase.quickCheckProblems(at: link) }
        // The pair: the real file opens and checks clean.
        _ = try SQLiteDatabase(path: real)
        #expect(try SQLiteDatabase.quickCheckProblems(at: real).isEmpty)
    }

    @Test("a damaged database is reported by the quick check and left byte for byte as it was")
    func aDamagedDatabaseIsReportedAndUnchanged() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try await database.write { transaction throws(SQLiteError) in
                try transaction.execute("CREATE TABLE t (x TEXT)")
                for index in 0..<400 {
                    try transaction.execute(
                        "INSERT INTO t VALUES ('\(String(repeating: "row \(index) ", count: 8))')")
                }
            }
        }
        // It would have seen a sound one as sound.
        #expect(try SQLiteDatabase.quickCheckProblems(at: path).isEmpty)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count > 3 * 4096)
        bytes.replaceSubrange(4096 + 10..<4096 + 200, with: Data(repeating: 0x5a, count: 190))
        try bytes.write(to: URL(fileURLWithPath: path))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        var found: [String] = []
        do {
            found = try SQLiteDatabase.quickCheckProblems(at: path)
        } catch {
            #expect(error.code == .corrupt, "\(error)")
            found = [error.description]
        }
        #expect(!found.isEmpty, "the damage was not seen")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
