import Foundation
import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

/// `kill -9` at random moments against processes writing the file store, then the store
/// reopened and every key checked. Seeded and bounded; longer with `KEEP_FUZZ_SCALE`.
@Suite("The file store under kill -9", .serialized)
struct FileStoreTortureTests {
    static let keys = (0..<8).map { "k\($0)" }

    @Test("a writer killed at any moment leaves every key a whole value, the last acknowledged or a later one")
    func aWriterKilledAtAnyMoment() async throws {
        let report = try await Self.torture(writers: 1, plan: FuzzPlan(iterations: 1_000, seed: 0x6b_111))
        print("torture · one writer: \(report)")
        #expect(report.problems.isEmpty, "\(report.plan): \(report.problems.prefix(5))")
        // Kills landed both between writes and in the middle of one.
        #expect(report.acknowledged > 0 && report.cutShort > 0, "\(report)")
    }

    @Test(
        "several writers killed at once on the same keys leave every key a whole value no acknowledged write overtook")
    func severalWritersKilledAtOnce() async throws {
        let report = try await Self.torture(writers: 3, plan: FuzzPlan(iterations: 300, seed: 0x6b_333))
        print("torture · three writers: \(report)")
        #expect(report.problems.isEmpty, "\(report.plan): \(report.problems.prefix(5))")
        #expect(report.acknowledged > 0 && report.cutShort > 0, "\(report)")
    }

    @Test("the same torture catches a writer that writes its values in place")
    func theTortureCatchesAWriterThatWritesInPlace() async throws {
        let report = try await Self.torture(
            writers: 1, plan: FuzzPlan(iterations: 300, seed: 0x6b_1a9), mode: "in-place")
        print("torture · in place: caught after \(report.rounds) rounds: \(report.problems.first ?? "never")")
        #expect(!report.problems.isEmpty, "\(report)")
    }

    /// What a torture run did and found.
    struct Report: CustomStringConvertible {
        let plan: FuzzPlan
        var rounds = 0
        var kills = 0
        /// Writes acknowledged, and writes running when their writer was killed.
        var acknowledged = 0
        var cutShort = 0
        var problems: [String] = []

        var description: String {
            "\(kills) kills in \(rounds) rounds, \(acknowledged) writes acknowledged, \(cutShort) cut short; "
                + "\(problems.count) problems (\(plan))"
        }
    }

    /// `plan.iterations` rounds: start `writers` writers (keep-torture `mode`) on one store,
    /// wait until each is ready, let them write for a random 0–20 ms, kill them all, reopen
    /// and check. Stops at the first round with a problem.
    static func torture(writers: Int, plan: FuzzPlan, mode: String = "files") async throws -> Report {
        let tool = try ChildProcess.tortureTool()
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        var random = plan.generator()
        var history = WriteHistory()
        var report = Report(plan: plan)
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
            report.problems += try await check(root, history).map { "round \(round): \($0)" }
            if !report.problems.isEmpty { break }
        }
        report.acknowledged = history.acknowledgedCount
        return report
    }

    /// Reopens the store (its sweep included) and checks every key, the listing, and that
    /// no temp file is left.
    static func check(_ root: String, _ history: WriteHistory) async throws -> [String] {
        let store = try FileStore(root: root)
        var problems: [String] = []
        var present = Set<String>()
        for key in keys {
            let value = try await store.read(StorageKey(.chats, key))
            if value != nil { present.insert(key) }
            if let problem = history.problem(key: key, value: value) { problems.append(problem) }
        }
        let listed = Set(try await store.listIds(.chats))
        if listed != present { problems.append("listed \(listed.sorted()), but \(present.sorted()) read") }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/store/chats")) ?? []
        let temps = names.filter { $0.hasPrefix(".keep-tmp-") }
        if !temps.isEmpty { problems.append("temp files left after a reopen: \(temps)") }
        return problems
    }
}
