import KeepConformance
import KeepFileStore
import KeepPorts

/// A ``Workload`` run once on a ``SimulatedDisk``: every call it made, when each operation
/// began and was acknowledged, and what each key may therefore hold at any cut.
struct WorkloadRun: Sendable {
    /// The disk once the setup values were durable, before the first step.
    let start: SimulatedDisk.Snapshot
    /// Every call the steps made, in the order the disk took them.
    let records: [SimulatedDisk.Record]
    let operations: [Outcome]
    /// The setup value of every key the workload touches (`nil`: absent).
    let initial: [StorageKey: String?]
    /// Operations that threw, in words.
    var failures: [String] {
        operations.compactMap { outcome in outcome.error.map { "\(outcome.operation) failed: \($0)" } }
    }

    /// One operation and the calls it spanned.
    struct Outcome: Sendable {
        let operation: Workload.Operation
        /// How many calls the disk had taken when the operation began: its first call is
        /// number `start`, so a cut after more than `start` calls finds it begun.
        let start: Int
        /// How many calls the disk had taken when it returned: a cut after at least `end`
        /// calls finds it acknowledged. `nil` when it threw (never acknowledged).
        let end: Int?
        let error: StorageError?
    }

    /// What one key may read at one cut.
    struct Allowed: Hashable, Sendable, CustomStringConvertible {
        /// Values of acknowledged operations not overtaken by a later acknowledged one.
        let settled: Set<String?>
        /// Values of operations begun and not acknowledged.
        let inFlight: Set<String?>

        var description: String {
            let all = settled.union(inFlight).map { PowerCut.describe($0) }.sorted()
            return all.joined(separator: " or ")
        }
    }

    /// Writes the setup with the correct store, makes it durable, then runs the steps, each
    /// writer's calls made through `calls(disk)`, each store's directory flushes shared by a
    /// `flushing()` of its own (the real group commit unless a test breaks it).
    ///
    /// For writers at once, an operation's `start` is the count when the step began and its
    /// `end` the count after it returned, which may include other writers' calls: both err
    /// towards more values allowed, never fewer.
    static func run(
        _ workload: Workload, root: String, sectorSize: Int,
        flushing: @escaping @Sendable () -> any CountingFlushing = { GroupCommit() },
        calls: @escaping @Sendable (SimulatedDisk) -> any FileSystemCalls
    ) async throws -> WorkloadRun {
        let disk = SimulatedDisk(sectorSize: sectorSize)
        let setup = try FileStore(root: root, calls: disk)
        for key in workload.setup.keys.sorted(by: { ($0.namespace, $0.id) < ($1.namespace, $1.id) }) {
            try await setup.write(key, workload.setup[key] ?? "")
        }
        disk.settle()
        let store = try FileStore(root: root, calls: calls(disk), flushing: flushing())
        var outcomes: [Outcome] = []
        for step in workload.steps {
            switch step {
            case .one(let operation):
                let start = disk.callCount
                do {
                    try await operation.apply(to: store)
                    outcomes.append(Outcome(operation: operation, start: start, end: disk.callCount, error: nil))
                } catch {
                    outcomes.append(Outcome(operation: operation, start: start, end: nil, error: error))
                }
            case .together(let operations, let interleaving):
                outcomes += await together(
                    operations, interleaving, on: disk, root: root, flushing: flushing, calls: calls)
            case .sharing(let operations):
                outcomes += await sharing(operations, on: disk, root: root, flushing: flushing(), calls: calls)
            }
        }
        return WorkloadRun(
            start: disk.start, records: disk.records, operations: outcomes,
            initial: Dictionary(uniqueKeysWithValues: workload.keys.map { ($0, workload.setup[$0]) }))
    }

    /// Runs `operations` at once, each on a thread of its own with a store of its own.
    private static func together(
        _ operations: [Workload.Operation], _ interleaving: Workload.Interleaving, on disk: SimulatedDisk,
        root: String, flushing: @escaping @Sendable () -> any CountingFlushing,
        calls: @escaping @Sendable (SimulatedDisk) -> any FileSystemCalls
    ) async -> [Outcome] {
        let start = disk.callCount
        let lockstep = interleaving == .lockstep ? Lockstep(writers: operations.count) : nil
        let threads = operations.map { _ in DedicatedThread() }
        defer { threads.forEach { $0.stop() } }
        let tasks = operations.enumerated().map { writer, operation in
            Task(executorPreference: threads[writer]) { () async -> Outcome in
                defer { lockstep?.finish(writer) }
                let base = calls(disk)
                let writerCalls = lockstep.map { Lockstep.Calls(base: base, lockstep: $0, writer: writer) } ?? base
                do throws(StorageError) {
                    try await operation.apply(to: try FileStore(root: root, calls: writerCalls, flushing: flushing()))
                    return Outcome(operation: operation, start: start, end: disk.callCount, error: nil)
                } catch {
                    return Outcome(operation: operation, start: start, end: nil, error: error)
                }
            }
        }
        var outcomes: [Outcome] = []
        for task in tasks { outcomes.append(await task.value) }
        return outcomes
    }

    /// Runs `operations` at once on one store, each on a thread of its own: the first alone
    /// until its directory flush is made, then the others while that flush is held under way,
    /// until each of them waits for a flush of `flushing`, waits for a lock the first one
    /// holds (an append to the value it is replacing), or is done.
    private static func sharing(
        _ operations: [Workload.Operation], on disk: SimulatedDisk, root: String, flushing: any CountingFlushing,
        calls: @escaping @Sendable (SimulatedDisk) -> any FileSystemCalls
    ) async -> [Outcome] {
        let start = disk.callCount
        let hold = FlushHold(base: calls(disk))
        let store: FileStore
        do {
            store = try FileStore(root: root, calls: hold, flushing: flushing)
        } catch {
            return operations.map { Outcome(operation: $0, start: start, end: nil, error: error) }
        }
        let threads = operations.map { _ in DedicatedThread() }
        defer { threads.forEach { $0.stop() } }
        let done = Counter()
        let launch = { (writer: Int) in
            Task(executorPreference: threads[writer]) { () async -> Outcome in
                defer { done.next() }
                do throws(StorageError) {
                    try await operations[writer].apply(to: store)
                    return Outcome(operation: operations[writer], start: start, end: disk.callCount, error: nil)
                } catch {
                    return Outcome(operation: operations[writer], start: start, end: nil, error: error)
                }
            }
        }
        var tasks = [launch(0)]
        // The others begin once the first one's flush is made (or it finished without one).
        while !hold.holding, done.count == 0 { await Task.yield() }
        tasks += operations.indices.dropFirst().map(launch)
        // The first stays in its flush until every other writer waits for a flush or is done.
        let directory = root + "/store/" + (operations.first?.namespace.rawValue ?? "")
        // A writer behind the first one's lock can neither flush nor finish before the release:
        // waiting for it to would wait for ever.
        while flushing.waiting(in: directory) + hold.waitingForLocks + done.count < operations.count - 1,
            done.count < operations.count
        {
            await Task.yield()
        }
        hold.release()
        var outcomes: [Outcome] = []
        for task in tasks { outcomes.append(await task.value) }
        return outcomes
    }

    /// What every key may read after a power cut that came after `cut` calls.
    func allowed(at cut: Int) -> [StorageKey: Allowed] {
        var result: [StorageKey: Allowed] = [:]
        for (key, initialValue) in initial {
            // Each candidate: a value, when its operation began, and when it was acknowledged.
            // An append's value is the one before it with its line added: appends are only
            // ever in steps of one operation, so the one before is the previous candidate.
            var candidates: [(value: String?, start: Int, end: Int?)] = [(initialValue, -1, 0)]
            for outcome in operations {
                let effect = outcome.operation.effect(on: key)
                if effect != .untouched {
                    candidates.append((effect.applied(to: candidates.last?.value ?? nil), outcome.start, outcome.end))
                }
            }
            let acknowledged = candidates.filter { candidate in candidate.end.map { $0 <= cut } ?? false }
            var settled = Set<String?>()
            var inFlight = Set<String?>()
            for candidate in candidates where candidate.start < cut {
                // Overtaken: an acknowledged operation began after this one was acknowledged.
                let overtaken = candidate.end.map { end in acknowledged.contains { $0.start >= end } } ?? false
                if overtaken { continue }
                if let end = candidate.end, end <= cut {
                    settled.insert(candidate.value)
                } else {
                    inFlight.insert(candidate.value)
                }
            }
            result[key] = Allowed(settled: settled, inFlight: inFlight)
        }
        return result
    }
}
