import KeepConformance
import KeepPorts
import KeepSQLite
import KeepSealed
import Testing
import keep_torture

/// `kill -9` at random moments against a process writing sealed rows to the kept-data
/// database (WAL, `synchronous=FULL`), then the database reopened and checked.
@Suite("The kept-data database under kill -9", .serialized)
struct KeptDatabaseTortureTests {
    @Test("a writer killed at any moment leaves the database whole: the integrity check passes and every row opens")
    func aWriterKilledAtAnyMomentLeavesTheDatabaseWhole() async throws {
        let plan = FuzzPlan(iterations: 500, seed: 0x6b_e47)
        let tool = try ChildProcess.tortureTool()
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let sealer = try AESGCMSealer(dataKey: TortureRows.dataKey(seed: plan.seed))
        var random = plan.generator()
        var history = RowHistory()
        var problems: [String] = []
        var cutShort = 0
        var rows = 0
        for round in 1...plan.iterations {
            let child = try ChildProcess(
                tool, ["kept", path, "0", "\(round)", "\(plan.seed)"], errors: directory.appending("writer.log"))
            try child.waitUntilReady()
            try child.read(until: ChildProcess.now() + UInt64.random(in: 0...20_000_000, using: &random))
            try child.kill()
            try history.record(child.lines)
            if history.cutShort != nil { cutShort += 1 }
            let found = try await Self.check(path, sealer: sealer, sizes: history.sizes)
            problems += found.problems.map { "round \(round): \($0)" }
            if history.allowed.contains(found.rows) {
                history.settle(on: found.rows)
            } else {
                problems.append(
                    "round \(round): rows \(found.rows.sorted { $0.key < $1.key }), where \(history.allowed) may be")
            }
            rows = found.rows.count
            if !problems.isEmpty { break }
        }
        print(
            "torture · kept-data database: \(plan.iterations) kills, \(history.acknowledgedCount) transactions "
                + "acknowledged, \(cutShort) cut short, \(rows) rows at the end; \(problems.count) problems (\(plan))")
        #expect(problems.isEmpty, "\(plan): \(problems.prefix(5))")
        // Kills landed both between transactions and in the middle of one.
        #expect(history.acknowledgedCount > 0 && cutShort > 0)
    }

    /// Opens the database afresh, runs `PRAGMA integrity_check`, and opens every row.
    static func check(
        _ path: String, sealer: AESGCMSealer, sizes: [Int: Int]
    ) async throws -> (rows: RowHistory.Rows, problems: [String]) {
        let database = try SQLiteDatabase(path: path)
        let integrity = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("PRAGMA integrity_check").map { row throws(SQLiteError) in try row.text(0) }
        }
        var problems = integrity == ["ok"] ? [] : ["the integrity check says \(integrity.prefix(3))"]
        let stored = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT id, seq, sealed FROM torture_rows")
        }
        var rows: RowHistory.Rows = [:]
        for row in stored {
            let id = try row.integer(0)
            let sequence = Int(try row.integer(1))
            rows[id] = sequence
            do {
                let payload = try sealer.open(try SealedPayload(bytes: try row.blob(2)), for: TortureRows.binding)
                let value = String(decoding: payload, as: UTF8.self)
                if let problem = MarkedValue.problem(value, size: sizes[sequence] ?? -1) {
                    problems.append("row \(id) opens to a wrong payload: \(problem)")
                } else if !value.hasPrefix("<w0r\(sequence)>") {
                    problems.append("row \(id) opens to another row's payload")
                }
            } catch {
                problems.append("row \(id) does not open: \(error)")
            }
        }
        return (rows, problems)
    }
}
