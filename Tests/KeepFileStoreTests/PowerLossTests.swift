import KeepConformance
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Testing

/// The store across a power cut at every step, on the simulated disk: the real write path
/// survives every crash state, and every broken one is caught.
@Suite("The file store across a power cut")
struct PowerLossTests {
    @Test(
        "a power cut at any step leaves every key its old or its new value, whole, and lists no temp file",
        arguments: Workload.all)
    func aPowerCutAtAnyStepLeavesOldOrNew(_ workload: Workload) async throws {
        let report = try await PowerCut.explore(workload)
        print("power cut · \(report)")
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(
            report.violations.isEmpty,
            "\(report.violations.count) violations, the first: \(report.violations.prefix(3).map(\.description))")
        // Both outcomes of an interrupted operation were reached, so the check had teeth.
        #expect(report.oldSeen > 0, "no crash state kept an old value")
        #expect(report.newSeen > 0, "no crash state showed a new value before it was acknowledged")
    }

    @Test("every broken write path is caught by a power cut", arguments: WriteMutant.caughtByAPowerCut)
    func everyBrokenWritePathIsCaught(_ mutant: WriteMutant) async throws {
        var states = 0
        var caught: [(workload: String, violation: PowerCut.Violation)] = []
        var catchers: [String: Int] = [:]
        for workload in Workload.all {
            let report = try await PowerCut.explore(workload, mutant: mutant)
            states += report.states
            caught += report.violations.map { (workload.name, $0) }
            if !report.violations.isEmpty { catchers[workload.name] = report.violations.count }
        }
        let first = caught.first.map { "workload \($0.workload), \($0.violation)" } ?? "none"
        print(
            "mutant · \(mutant.rawValue): caught by \(caught.count) of \(states) crash states "
                + "(\(catchers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))); "
                + "the first: \(first)")
        #expect(!caught.isEmpty, "no crash state caught \(mutant.rawValue)")
    }

    @Test(
        "each flush a turn makes is needed: without it a power cut loses the question, the turn, or brings back an answered question",
        arguments: [
            (WriteMutant.noTempFlush, [Workload.d1, Workload.c1]),
            (WriteMutant.noDirectoryFlush, [Workload.d1, Workload.c1]),
            (WriteMutant.noFlushAfterRemove, [Workload.d1]),
        ])
    func eachFlushOfATurnIsNeeded(_ mutant: WriteMutant, harmed: [StorageKey]) async throws {
        // The real write path first: the same cuts find nothing wrong, so a violation below
        // is the missing flush's doing.
        let clean = try await PowerCut.explore(.turn)
        #expect(clean.violations.isEmpty && clean.failures.isEmpty)
        let report = try await PowerCut.explore(.turn, mutant: mutant)
        #expect(report.failures.isEmpty, "\(report.failures)")
        for key in harmed {
            let named = "\(key.namespace.rawValue)/\"\(key.id)\""
            #expect(
                report.violations.contains { $0.problem.contains(named) },
                "no crash state lost \(named) without \(mutant.rawValue): \(report.violations.prefix(2))")
        }
    }

    @Test("an append flushes its file and no directory: no name changes")
    func anAppendFlushesNoDirectory() async throws {
        let run = try await WorkloadRun.run(.appends, root: PowerCut.root, sectorSize: PowerCut.sectorSize) { $0 }
        #expect(run.failures.isEmpty, "\(run.failures)")
        let calls = run.records.map(\.call)
        let file = PowerCut.root + "/store/chats/c1"
        #expect(calls.filter { $0 == FileSystemCall.flush(file).description }.count == 3, "\(calls)")
        #expect(!calls.contains { $0.hasPrefix("flushDirectory(") || $0.hasPrefix("rename(") }, "\(calls)")
    }

    @Test("concurrent writers of one store share a directory flush: one for the first writer, one for the rest")
    func concurrentWritersShareAFlush() async throws {
        let run = try await WorkloadRun.run(
            .concurrentWriters, root: PowerCut.root, sectorSize: PowerCut.sectorSize
        ) { $0 }
        #expect(run.failures.isEmpty, "\(run.failures)")
        let chats = PowerCut.root + "/store/chats"
        let flushes = run.records.filter { $0.call == FileSystemCall.flushDirectory(chats).description }
        let renames = run.records.filter { $0.call.hasPrefix("rename(") }
        // Two steps of three writers each: six renames, and two flushes a step, not three.
        #expect(renames.count == 6)
        #expect(flushes.count == 4, "\(run.records.map(\.call))")
    }

    @Test("a group commit that returns a writer with a flush begun before its rename is caught by a power cut")
    func aLateJoiningGroupCommitIsCaught() async throws {
        let report = try await PowerCut.explore(.concurrentWriters, flushing: { LateJoiningGroupCommit() })
        print("group commit mutant · \(report)")
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(!report.violations.isEmpty, "no crash state caught a writer acknowledged before its rename was flushed")
        // What it gets wrong: an acknowledged value lost, the old one read in its place.
        #expect(report.violations.contains { $0.problem.contains("may hold only") }, "\(report.violations.prefix(2))")
    }
}
