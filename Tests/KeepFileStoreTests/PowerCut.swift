import KeepConformance
import KeepFileStore
import KeepPorts

/// Runs a ``Workload`` on a ``SimulatedDisk``, cuts the power after every call it made,
/// and checks the store on every state each cut can leave (``CrashStates``).
///
/// For each state the store is opened afresh on that disk (its start-up sweep included)
/// and every key the workload touches is read. A key must read one of the values it may
/// hold at that moment: the value of the last operation on it acknowledged before the cut
/// (the setup value when there is none), or the value of one that had begun and was not
/// yet acknowledged; never anything else, so never zeros, a prefix or a mix. `listIds`
/// must list exactly the keys that read a value, and no temp file may be left after the
/// sweep.
enum PowerCut {
    /// Where the store lives on the simulated disk.
    static let root = "/data/keep"
    static let sectorSize = 16

    /// What exploring one workload found.
    struct Report: Sendable, CustomStringConvertible {
        let workload: String
        /// How many calls the workload made: the power was cut after each, and before the first.
        var calls = 0
        /// Distinct (disk, what may be read) moments among the cuts.
        var moments = 0
        /// Of those, how many were enumerated whole, and how many by the bounded subset.
        var exhaustive = 0
        var bounded = 0
        /// Crash states the store was reopened and checked on.
        var states = 0
        /// How often a key that had an operation in flight read its old value, and its new one.
        var oldSeen = 0
        var newSeen = 0
        /// Operations that threw on this fault-free disk.
        var failures: [String] = []
        /// Every crash state the store got wrong, with what it got wrong there.
        var violations: [Violation] = []

        var description: String {
            "\(workload): \(calls + 1) cuts, \(states) crash states (\(exhaustive) moments enumerated whole, "
                + "\(bounded) bounded), old value seen \(oldSeen) times, new \(newSeen); "
                + "\(violations.count) violations, \(failures.count) failed operations"
        }
    }

    /// One crash state the store got wrong, and how.
    struct Violation: Sendable, CustomStringConvertible {
        let cut: Int
        let call: String
        let state: String
        let problem: String

        var description: String { "power cut after call \(cut) (\(call)), \(state): \(problem)" }
    }

    /// Runs `workload` with the store's calls broken by `mutant` (none: the real write
    /// path) and its directory flushes shared by `flushing()` (the real group commit unless a
    /// test breaks it), and checks every crash state after every call.
    static func explore(
        _ workload: Workload, mutant: WriteMutant? = nil,
        flushing: @escaping @Sendable () -> any CountingFlushing = { GroupCommit() }
    ) async throws -> Report {
        let run = try await WorkloadRun.run(workload, root: root, sectorSize: sectorSize, flushing: flushing) { disk in
            mutant?.calls(over: disk) ?? disk
        }
        var report = Report(workload: workload.name, calls: run.records.count, failures: run.failures)
        var explored: [SimulatedDisk.Snapshot: CrashStates.Exploration] = [:]
        var checked = Set<Moment>()
        for cut in 0...run.records.count {
            let snapshot = cut == 0 ? run.start : run.records[cut - 1].snapshot
            let moment = Moment(snapshot: snapshot, allowed: run.allowed(at: cut))
            guard checked.insert(moment).inserted else { continue }
            let exploration = explored[snapshot] ?? CrashStates.explore(snapshot, sectorSize: sectorSize)
            explored[snapshot] = exploration
            report.moments += 1
            if exploration.exhaustive { report.exhaustive += 1 } else { report.bounded += 1 }
            for state in exploration.states {
                report.states += 1
                let found = await check(
                    state.image, moment.allowed, keys: workload.keys, appended: workload.appendedKeys)
                report.oldSeen += found.old
                report.newSeen += found.new
                if !found.problems.isEmpty {
                    report.violations.append(
                        Violation(
                            cut: cut, call: cut == 0 ? "before the first call" : run.records[cut - 1].call,
                            state: state.summary, problem: found.problems.joined(separator: "; ")))
                }
            }
        }
        return report
    }

    /// A cut's disk and what each key may read then: two cuts alike in both need one check.
    private struct Moment: Hashable {
        let snapshot: SimulatedDisk.Snapshot
        let allowed: [StorageKey: WorkloadRun.Allowed]
    }

    /// Reopens the store on `image` and checks every key, the listings and the sweep. A key
    /// some step appends to is read as lines: its finished lines must be an allowed value's,
    /// and one more append must cut whatever unfinished line is left and add its own.
    private static func check(
        _ image: SimulatedDisk.DiskImage, _ allowed: [StorageKey: WorkloadRun.Allowed], keys: [StorageKey],
        appended: Set<StorageKey>
    ) async -> (problems: [String], old: Int, new: Int) {
        let disk = SimulatedDisk(image: image, sectorSize: sectorSize)
        let store: FileStore
        do {
            store = try FileStore(root: root, calls: disk)
        } catch {
            return (["the store could not be reopened: \(error)"], 0, 0)
        }
        var problems: [String] = []
        var old = 0
        var new = 0
        var present: [Namespace: Set<String>] = [:]
        for key in keys {
            guard let allowance = allowed[key] else { continue }
            let value: String?
            do {
                value = try await store.read(key)
            } catch {
                problems.append("reading \(key) failed: \(error)")
                continue
            }
            if value != nil { present[key.namespace, default: []].insert(key.id) }
            let lines = appended.contains(key)
            let seen = lines ? value.map { String(ValueLines.finished($0)) } : value
            let asLines = { (values: Set<String?>) in
                lines ? Set(values.map { $0.map { String(ValueLines.finished($0)) } }) : values
            }
            if asLines(allowance.settled).contains(seen) {
                if !allowance.inFlight.isEmpty { old += 1 }
            } else if asLines(allowance.inFlight).contains(seen) {
                new += 1
            } else {
                problems.append("\(key) read \(describe(value)); it may hold only \(allowance)")
            }
            if lines, let problem = await probe(store, key, holding: seen) { problems.append(problem) }
        }
        for namespace in Set(keys.map(\.namespace)).sorted() {
            do {
                let listed = Set(try await store.listIds(namespace))
                let expected = present[namespace] ?? []
                if listed != expected {
                    problems.append(
                        "\(namespace.rawValue) listed \(listed.subtracting(expected).sorted()) that do not read, "
                            + "and left out \(expected.subtracting(listed).sorted()) that do")
                }
            } catch {
                problems.append("listing \(namespace.rawValue) failed: \(error)")
            }
            let directory = root + "/store/" + namespace.rawValue
            let temps = disk.names(in: directory).filter { $0.hasPrefix(".keep-tmp-") }
            if !temps.isEmpty { problems.append("reopening left temp files in \(directory): \(temps)") }
        }
        return (problems, old, new)
    }

    /// Why one more append to `key`, whose finished lines are `lines` (`nil`: no value),
    /// did not do what an append must, or `nil`: cut the unfinished line, add its own.
    private static func probe(_ store: FileStore, _ key: StorageKey, holding lines: String?) async -> String? {
        do {
            let appended = try await store.append(key) { _ in "probe" }
            let after = try await store.read(key)
            guard let lines else { return appended || after != nil ? "an append re-created the absent \(key)" : nil }
            if !appended || after != lines + "probe\n" {
                return "appending to \(key) after the cut gave \(describe(after)), not its lines and the probe"
            }
            return nil
        } catch {
            return "appending to \(key) after the cut failed: \(error)"
        }
    }

    /// A value as a violation shows it: its length, its head, and how much of it is zeros.
    static func describe(_ value: String?) -> String {
        guard let value else { return "nothing" }
        let bytes = Array(value.utf8)
        let zeros = bytes.filter { $0 == 0 }.count
        let head = String(decoding: bytes.prefix(24).map { $0 == 0 ? UInt8(ascii: "0") : $0 }, as: UTF8.self)
        return "\(bytes.count) bytes \"\(head)\(bytes.count > 24 ? "…" : "")\""
            + (zeros > 0 ? ", \(zeros) of them zero" : "")
    }
}
