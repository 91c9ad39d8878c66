import KeepPorts
import Synchronization

/// Ten writers overwrite one key with large marked values while a reader, on a thread of
/// its own, reads it as fast as it can: what the reader saw.
///
/// The reader runs on a thread of its own (`DedicatedThread`) so its reads truly overlap the writers' even
/// when the adapter blocks in system calls and the shared pool has only two threads.
public enum TornReadProbe {
    /// What the reader saw: how many reads returned a value, and why each bad one was bad.
    public struct Report: Sendable {
        /// How many reads returned a value while the writers wrote.
        public let reads: Int
        /// Why each bad read was bad (a value that is not whole, or the key read as
        /// absent); empty when every read was whole.
        public let problems: [String]
    }

    /// Runs `writers` writers for `rounds` rounds each, values of `size` bytes, at
    /// `chats/contended` in `store`, with one reader; every value read must be whole.
    public static func run(
        on store: any StoragePort, key: StorageKey = StorageKey(.chats, "contended"), size: Int,
        writers: Int = 10, rounds: Int = 3
    ) async throws -> Report {
        // A whole value is there before the reader starts, so "absent" is never right.
        try await store.write(key, MarkedValue.make(writer: writers, round: 0, size: size))
        let writersDone = Atomic<Bool>(false)
        let thread = DedicatedThread(name: "keep.torn-read-probe")
        defer { thread.stop() }
        let reader = Task(executorPreference: thread) { () async throws -> Report in
            var reads = 0
            var problems: [String] = []
            repeat {
                if let value = try await store.read(key) {
                    reads += 1
                    if let problem = MarkedValue.problem(value, size: size) { problems.append(problem) }
                } else {
                    problems.append("the key read as absent while it was being overwritten")
                }
            } while !writersDone.load(ordering: .acquiring)
            return Report(reads: reads, problems: problems)
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for round in 0..<rounds {
                            try await store.write(key, MarkedValue.make(writer: writer, round: round, size: size))
                        }
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            writersDone.store(true, ordering: .releasing)
            _ = try? await reader.value
            throw error
        }
        writersDone.store(true, ordering: .releasing)
        let report = try await reader.value
        if let last = try await store.read(key), let problem = MarkedValue.problem(last, size: size) {
            return Report(reads: report.reads, problems: report.problems + ["the final value: \(problem)"])
        }
        return report
    }
}
