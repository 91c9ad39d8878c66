import KeepFileStore
import KeepPorts

/// Durable writes per second with 1, 4 and 16 writers at once, each overwriting a 1 KiB
/// key of its own in one namespace: the file store, written from tasks as an app would,
/// against SQLite in WAL mode with `synchronous=FULL` and one row per transaction.
///
/// A sample is every writer making ``Scale/writesPerWriter`` writes; its time over the
/// number of writes is the time per write, and its inverse the rate. SQLite's writers are
/// tasks too, queueing for its one connection (see ``SQLiteKeyValue``).
struct ConcurrentWritersScenario: Scenario {
    let id = ScenarioID.concurrentWriters
    static let valueSize = 1024

    static let fileStore = "file store"
    static let sqlite = "SQLite WAL, synchronous=FULL"

    static func title(_ writers: Int) -> String {
        writers == 1 ? "1 writer" : "\(writers) concurrent writers"
    }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let fileStore = try FileStore(root: directory + "/files")
        let sqlite = try SQLiteKeyValue(path: directory + "/sqlite.db")
        let most = scale.writerCounts.max() ?? 1
        let values = (0..<most).map { Payload.text(Self.valueSize, seed: $0) }
        // Every writer's key exists before the first sample, as an overwrite is what is measured.
        for writer in 0..<most {
            try await fileStore.write(StorageKey(.chats, Payload.id("w", writer)), values[writer])
            try await sqlite.put(Payload.id("w", writer), Array(values[writer].utf8))
        }
        RawFile.flushEverything()
        let writes = scale.writesPerWriter
        let comparisons = scale.writerCounts.map { writers in
            Comparison(
                title: Self.title(writers), metric: .throughput, operation: "write", baseline: Self.sqlite,
                contenders: [
                    Contender(Self.fileStore, count: writers, operationsPerSample: writers * writes) {
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            for writer in 0..<writers {
                                group.addTask {
                                    let key = StorageKey(.chats, Payload.id("w", writer))
                                    for _ in 0..<writes { try await fileStore.write(key, values[writer]) }
                                }
                            }
                            try await group.waitForAll()
                        }
                    },
                    Contender(
                        Self.sqlite, note: "one row per transaction", count: writers,
                        operationsPerSample: writers * writes
                    ) {
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            for writer in 0..<writers {
                                group.addTask {
                                    let bytes = Array(values[writer].utf8)
                                    for _ in 0..<writes { try await sqlite.put(Payload.id("w", writer), bytes) }
                                }
                            }
                            try await group.waitForAll()
                        }
                    },
                ])
        }
        return .ready(comparisons)
    }
}
