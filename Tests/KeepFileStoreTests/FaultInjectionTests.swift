import KeepConformance
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every system call of every operation, failed in turn with `EIO`, `ENOSPC` and `EACCES`,
/// on the simulated disk; and what a failed flush can honestly be said to leave.
@Suite("The file store under injected faults")
struct FaultInjectionTests {
    static let root = PowerCut.root
    static let errnos: [Int32] = [EIO, ENOSPC, EACCES]
    static let c1 = StorageKey(.chats, "c1")
    static let c2 = StorageKey(.chats, "c2")
    static let c3 = StorageKey(.chats, "c3")
    static let d1 = StorageKey(.drafts, "d1")
    /// The new value: shaped like an API key, so an error that printed it would be caught.
    static let newValue = "sk-new-value-never-in-an-error-0123456789"

    @Test(
        "a system call that fails is a typed error with its code, acknowledges nothing, and leaves the old value",
        arguments: Scenario.all)
    func aFailedCallIsATypedErrorThatLeavesTheOldValue(_ scenario: Scenario) async throws {
        let trace = try await scenario.trace()
        var faults = 0
        for index in trace.faultable {
            for errno in Self.errnos {
                faults += 1
                try await check(scenario, failing: index, of: trace, with: errno)
            }
        }
        print("faults · \(scenario.name): \(faults) faults, at each of \(trace.faultable.count) calls")
        #expect(faults >= 3, "the operation made no call to fail")
    }

    @Test("an EIO on a temp file's fsync never becomes a success: not later, not after a reopen, not after a power cut")
    func anEIOOnFsyncIsNeverTurnedIntoASuccess() async throws {
        let correct = try await Self.failedFlush(mutant: nil)
        #expect(correct.error?.errno == EIO)
        #expect(correct.error?.code == .io)
        #expect(correct.readAfterwards == "old c1", "the value whose flush failed is read back")
        #expect(correct.states > 0)
        #expect(correct.violations.isEmpty, "\(correct.violations.prefix(3))")

        // The pair: a writer that retries the failed flush and believes its success is caught.
        let retried = try await Self.failedFlush(mutant: .flushRetried)
        #expect(retried.error == nil, "the retrying writer reported the failure after all")
        #expect(!retried.violations.isEmpty, "no crash state caught a retried fsync")
        print(
            "faults · EIO on fsync: the real store kept the old value in all \(correct.states) crash states; "
                + "a retried fsync was caught by \(retried.violations.count) of \(retried.states), the first: "
                + (retried.violations.first ?? ""))
    }

    @Test("an EIO on the directory's fsync is reported, not retried, and a power cut finds the whole old or new value")
    func anEIOOnTheDirectoryFsyncIsReported() async throws {
        let disk = try await Self.disk(with: [Self.c1: "old c1"])
        let recorder = RecordingFileSystem(over: disk) { $0.operation == "flushDirectory" ? .fail(EIO) : nil }
        let store = try FileStore(root: Self.root, calls: recorder)
        let error = await #expect(throws: StorageError.self) { try await store.write(Self.c1, Self.newValue) }
        #expect(error?.errno == EIO)
        #expect(recorder.calls.filter { $0.operation == "flushDirectory" }.count == 1, "the flush was retried")

        // The switch was made before the flush failed: which name survives a cut is unknown,
        // and all that is promised is a whole value, the old or the new.
        var seen = Set<String?>()
        let snapshot = disk.records.last?.snapshot ?? disk.start
        for state in CrashStates.explore(snapshot, sectorSize: disk.sectorSize).states {
            let reopened = try FileStore(
                root: Self.root, calls: SimulatedDisk(image: state.image, sectorSize: disk.sectorSize))
            seen.insert(try await reopened.read(Self.c1))
        }
        #expect(seen == ["old c1", Self.newValue])
    }

    // MARK: - The matrix

    /// Runs `scenario` with call `index` failing with `errno`, and checks the error and what is left.
    private func check(
        _ scenario: Scenario, failing index: Int, of trace: Scenario.Trace, with errno: Int32
    ) async throws {
        let call = trace.calls[index]
        let context = "\(scenario.name), \(call) failing with errno \(errno)"
        let disk = try await scenario.prepare()
        let counter = Mutex(0)
        let recorder = RecordingFileSystem(over: disk) { _ in
            counter.withLock { count in
                defer { count += 1 }
                return count == index ? .fail(errno) : nil
            }
        }
        let error = await scenario.perform(on: recorder)
        // The start-up sweep is housekeeping: only a directory it cannot list stops the store.
        // The ownership check is no housekeeping: a directory it cannot open or look at is
        // one it cannot vouch for, and stops the store too.
        // Closing the read-only descriptor that held the replaced file's lock, after the
        // rename, loses nothing: the write stands.
        let releasesALock = call.operation == "close" && !WriteMutant.isTemp(call.path)
        let checksOwner = call.operation == "openDirectory" || call.operation == "status"
        let mustThrow =
            (scenario.action != .open || call.operation == "listDirectory" || checksOwner) && !releasesALock
        if mustThrow {
            #expect(error?.code == StorageError.Code(errno: errno), "\(context): \(String(describing: error))")
            #expect(error?.errno == errno, "\(context)")
            #expect(error?.path != nil, "\(context): the error names no path")
            #expect(error?.description.contains(Self.newValue) == false, "\(context): the error shows the value")
        } else {
            #expect(error == nil, "\(context): the sweep's failure stopped the store: \(String(describing: error))")
        }

        // What is left, seen by a store opened afresh without faults (its sweep included).
        let reopened = try FileStore(root: Self.root, calls: disk)
        let switched = trace.switchIndex.map { index > $0 } ?? false
        var present: [Namespace: Set<String>] = [:]
        for key in scenario.keys {
            let value = try await reopened.read(key)
            var allowed: Set<String?> = [scenario.setup[key]]
            let effect = scenario.effect(on: key)
            if switched, effect != .untouched { allowed.insert(effect.applied(to: scenario.setup[key] ?? nil)) }
            // A key appended to is read as lines: a cut unfinished line is no change.
            let lines = { (value: String?) in
                scenario.readsAsLines(key) ? value.map { String(ValueLines.finished($0)) } : value
            }
            #expect(
                Set(allowed.map(lines)).contains(lines(value)), "\(context): \(key) reads \(PowerCut.describe(value))")
            if value != nil { present[key.namespace, default: []].insert(key.id) }
        }
        for namespace in Set(scenario.keys.map(\.namespace)) {
            #expect(Set(try await reopened.listIds(namespace)) == present[namespace] ?? [], "\(context)")
            let temps = disk.names(in: Self.root + "/store/" + namespace.rawValue).filter { $0.hasPrefix(".keep-tmp-") }
            #expect(temps.isEmpty, "\(context): temp files left after a reopen: \(temps)")
        }
    }

    /// A disk holding `values`, written by the correct store and made durable.
    static func disk(with values: [StorageKey: String]) async throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        let store = try FileStore(root: root, calls: disk)
        for key in values.keys.sorted(by: { $0.id < $1.id }) { try await store.write(key, values[key] ?? "") }
        disk.settle()
        return disk
    }

    // MARK: - A flush that fails as Linux fails it

    /// What a failed flush of c1's temp left, by the store's calls broken by `mutant`.
    struct FailedFlush {
        let error: StorageError?
        let readAfterwards: String?
        let states: Int
        let violations: [String]
    }

    /// Writes c1 with its temp's flush failing as Linux fails it, then writes c2, reopens,
    /// and cuts the power after every call from the failure on. In every crash state c1 must
    /// read the old value if its write threw and the new one if it was acknowledged; c2, once
    /// acknowledged, its new value.
    static func failedFlush(mutant: WriteMutant?) async throws -> FailedFlush {
        let disk = try await disk(with: [c1: "old c1", c2: "old c2"])
        let store = try FileStore(root: root, calls: mutant?.calls(over: disk) ?? disk)
        disk.failFlushes(1)
        var failure: StorageError?
        do throws(StorageError) { try await store.write(c1, newValue) } catch { failure = error }
        let failedAt = disk.callCount
        try await store.write(c2, "new c2")
        let c2Acknowledged = disk.callCount
        let readAfterwards = try await FileStore(root: root, calls: disk).read(c1)
        let expected: [StorageKey: String] = [c1: failure == nil ? newValue : "old c1", c2: "new c2"]
        let records = disk.records
        var states = 0
        var violations: [String] = []
        for cut in failedAt...records.count {
            let exploration = CrashStates.explore(records[cut - 1].snapshot, sectorSize: disk.sectorSize)
            for state in exploration.states {
                states += 1
                let reopened = try FileStore(
                    root: root, calls: SimulatedDisk(image: state.image, sectorSize: disk.sectorSize))
                let c1Value = try await reopened.read(c1)
                if c1Value != expected[c1] {
                    violations.append(
                        "after call \(cut) (\(records[cut - 1].call)), \(state.summary): c1 reads \(PowerCut.describe(c1Value))"
                    )
                }
                if cut >= c2Acknowledged, try await reopened.read(c2) != expected[c2] {
                    violations.append("after call \(cut), \(state.summary): the acknowledged c2 was lost")
                }
            }
        }
        return FailedFlush(error: failure, readAfterwards: readAfterwards, states: states, violations: violations)
    }
}

// MARK: - The scenarios

extension FaultInjectionTests {
    /// One operation on a prepared store: every call it makes is failed in turn.
    struct Scenario: Sendable, CustomTestStringConvertible {
        let name: String
        let setup: [StorageKey: String]
        /// Whether a dead writer's temp file is left in `chats` for the start-up sweep.
        var deadTemp = false
        let action: Action

        enum Action: Sendable, Equatable {
            case write(StorageKey, String)
            case append(StorageKey, String)
            case remove(StorageKey)
            case clear(Namespace)
            case read(StorageKey)
            case list(Namespace)
            /// Opening the store: its start-up sweep.
            case open
        }

        static let all: [Scenario] = [
            Scenario(name: "overwrite", setup: [c1: "old c1", c2: "old c2"], action: .write(c1, newValue)),
            Scenario(name: "first write on an empty disk", setup: [:], action: .write(c1, newValue)),
            Scenario(name: "append", setup: [c1: "old c1\n", c2: "old c2\n"], action: .append(c1, newValue)),
            Scenario(
                name: "append after an unfinished line", setup: [c1: "old c1\nunfinished"],
                action: .append(c1, newValue)
            ),
            Scenario(name: "append to an absent key", setup: [c1: "old c1\n"], action: .append(c2, newValue)),
            Scenario(name: "remove", setup: [c1: "old c1", c2: "old c2"], action: .remove(c1)),
            Scenario(
                name: "clear", setup: [c1: "old c1", c2: "old c2", c3: "old c3", d1: "old d1"], action: .clear(.chats)),
            Scenario(name: "read", setup: [c1: "old c1"], action: .read(c1)),
            Scenario(name: "list", setup: [c1: "old c1", c2: "old c2"], action: .list(.chats)),
            Scenario(
                name: "open, with a dead writer's temp to sweep", setup: [c1: "old c1"], deadTemp: true, action: .open),
        ]

        var testDescription: String { name }

        /// Every key the scenario has or touches.
        var keys: [StorageKey] {
            var keys = Set(setup.keys)
            if case .write(let key, _) = action { keys.insert(key) }
            if case .append(let key, _) = action { keys.insert(key) }
            return keys.sorted { $0.id < $1.id }
        }

        /// Whether `key` is read as lines: the one this scenario appends to.
        func readsAsLines(_ key: StorageKey) -> Bool {
            if case .append(key, _) = action { return true }
            return false
        }

        /// What the action does to `key`, once it has made its switch.
        func effect(on key: StorageKey) -> Workload.Effect {
            switch action {
            case .write(let target, let value): Workload.Operation.write(target, value).effect(on: key)
            case .append(let target, let line): Workload.Operation.append(target, line).effect(on: key)
            case .remove(let target): Workload.Operation.remove(target).effect(on: key)
            case .clear(let namespace): Workload.Operation.clear(namespace).effect(on: key)
            case .read, .list, .open: .untouched
            }
        }

        /// A disk with the setup values durable and, when asked, a dead writer's temp file.
        func prepare() async throws -> SimulatedDisk {
            let disk = try await FaultInjectionTests.disk(with: setup)
            if deadTemp {
                let path = root + "/store/chats/.keep-tmp-" + String(repeating: "0", count: 32)
                let file = try disk.create(path, mode: 0o600)
                try disk.write(file, Array("half a value".utf8))
                try disk.close(file)  // its writer died: the lock went with it
            }
            return disk
        }

        /// Opens the store through `calls` and carries the action out; the error, if any.
        func perform(on calls: any FileSystemCalls) async -> StorageError? {
            do throws(StorageError) {
                let store = try FileStore(root: root, calls: calls)
                switch action {
                case .write(let key, let value): try await store.write(key, value)
                case .append(let key, let line): _ = try await store.append(key) { _ in line }
                case .remove(let key): try await store.remove(key)
                case .clear(let namespace): try await store.clear(namespace)
                case .read(let key): _ = try await store.read(key)
                case .list(let namespace): _ = try await store.listIds(namespace)
                case .open: break
                }
                return nil
            } catch {
                return error
            }
        }

        /// The calls the scenario makes when nothing fails.
        struct Trace {
            let calls: [FileSystemCall]
            /// The calls to fail: the sweep's for `open`, the action's for the rest.
            let faultable: Range<Int>
            /// The call that changes a key (a rename onto it, an unlink of it): a failure after
            /// it may leave the new value.
            let switchIndex: Int?
        }

        func trace() async throws -> Trace {
            // How many calls opening takes, on a disk of its own: the sweep changes the disk.
            let opener = RecordingFileSystem(over: try await prepare())
            _ = try FileStore(root: root, calls: opener)
            let opening = opener.calls.count
            let recorder = RecordingFileSystem(over: try await prepare())
            if let error = await perform(on: recorder) { throw error }
            let calls = recorder.calls
            // An append's switch is the flush of its line, the last flush it makes: a failure
            // before it cuts the line back.
            let appendSwitch = calls.lastIndex { $0.operation == "flush" && !WriteMutant.isTemp($0.path) }
            let switchIndex =
                if case .append = action { appendSwitch } else {
                    calls.firstIndex { call in
                        switch call {
                        case .rename(_, let to): !WriteMutant.isTemp(to)
                        case .unlink(let path): !WriteMutant.isTemp(path)
                        default: false
                        }
                    }
                }
            return Trace(
                calls: calls, faultable: action == .open ? 0..<opening : opening..<calls.count, switchIndex: switchIndex
            )
        }
    }
}
