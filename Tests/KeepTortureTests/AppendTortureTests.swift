import Foundation
import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

/// `kill -9` at random moments against processes appending to the file store (and now and
/// then replacing a value whole), then the store reopened and every key's lines checked.
@Suite("The file store's appends under kill -9", .serialized)
struct AppendTortureTests {
    @Test("an appender killed at any moment loses no acknowledged line, and no torn line is ever read")
    func anAppenderKilledAtAnyMoment() async throws {
        let report = try await Self.torture(writers: 1, plan: FuzzPlan(iterations: 400, seed: 0x6b_a11))
        print("torture · one appender: \(report)")
        #expect(report.problems.isEmpty, "\(report.plan): \(report.problems.prefix(5))")
        #expect(report.acknowledged > 0 && report.cutShort > 0, "\(report)")
    }

    @Test("appenders killed at once on the same keys lose no acknowledged line, and leave no torn one")
    func severalAppendersKilledAtOnce() async throws {
        let report = try await Self.torture(writers: 3, plan: FuzzPlan(iterations: 150, seed: 0x6b_a33))
        print("torture · three appenders: \(report)")
        #expect(report.problems.isEmpty, "\(report.plan): \(report.problems.prefix(5))")
        #expect(report.acknowledged > 0 && report.cutShort > 0, "\(report)")
    }

    @Test("the same torture catches an appender that neither locks nor cuts an unfinished line")
    func theTortureCatchesANaiveAppender() async throws {
        let report = try await Self.torture(
            writers: 1, plan: FuzzPlan(iterations: 400, seed: 0x6b_a1e), mode: "naive-appends")
        print("torture · naive appender: caught after \(report.rounds) rounds: \(report.problems.first ?? "never")")
        #expect(!report.problems.isEmpty, "\(report)")
    }

    /// `plan.iterations` rounds: start `writers` appenders (keep-torture `mode`) on one store,
    /// wait until each is ready, let them work for a random 0–20 ms, kill them all, reopen and
    /// check. Stops at the first round with a problem.
    static func torture(
        writers: Int, plan: FuzzPlan, mode: String = "appends"
    ) async throws -> FileStoreTortureTests.Report {
        let tool = try ChildProcess.tortureTool()
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        var random = plan.generator()
        var history = AppendHistory()
        var report = FileStoreTortureTests.Report(plan: plan)
        for round in 1...plan.iterations {
            let (children, killedAt) = try ChildProcess.killedRound(
                tool, mode: mode, path: root, writers: writers, round: round, seed: plan.seed, logs: directory,
                random: &random)
            for (writer, child) in children.enumerated() {
                try history.record(child.lines, writer: writer, killedAt: killedAt)
                if child.lines.last?.hasPrefix("begin") == true { report.cutShort += 1 }
            }
            report.rounds += 1
            report.kills += writers
            let store = try FileStore(root: root)
            for key in AppendWriter.keys {
                let value = try await store.read(key)
                report.problems += history.problems(key: key.id, value: value).map { "round \(round): \($0)" }
            }
            if !report.problems.isEmpty { break }
        }
        report.acknowledged = history.acknowledgedCount
        return report
    }
}

/// The keys `keep-torture appends` writes.
enum AppendWriter {
    static let keys = (0..<4).map { StorageKey(.chats, "a\($0)") }
}
