import KeepFileStore
import KeepPorts

/// Durable writes per second with 1, 4 and 16 writers at once, each overwriting a 1 KiB
/// key of its own in one namespace: the file store, written from tasks as an app would,
/// against SQLite in WAL mode with `synchronous=FULL` and one row per transaction, and
/// against itself without group commit (every write flushing the directory alone), and
/// against the two-flush floor made raw on threads of its own: what the disk allows this
/// many writers at once, with no cooperative pool in the way.
///
/// A sample is every writer making ``Scale/writesPerWriter`` writes; its time over the
/// number of writes is the time per write, and its inverse the rate. SQLite's writers are
/// tasks too, queueing for its one connection (see ``SQLiteKeyValue``).
struct ConcurrentWritersScenario: Scenario {
    let id = ScenarioID.concurrentWriters
    static let valueSize = 1024

    static let fileStore = "file store"
    static let withoutGroupCommit = "file store without group commit"
    static let sqlite = "SQLite WAL, synchronous=FULL"
    static let rawFloor = "two-flush floor on threads (raw)"

    static func title(_ writers: Int) -> String {
        writers == 1 ? "1 writer" : "\(writers) concurrent writers"
    }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let fileStore = try FileStore(root: directory + "/files")
        let eachFlushes = try FileStore(
            root: directory + "/files", calls: POSIXFileSystem(), flushing: EachWriteFlushes())
        let sqlite = try SQLiteKeyValue(path: directory + "/sqlite.db")
        let raw = directory + "/raw"
        try RawFile.makeDirectories(raw)
        let most = scale.writerCounts.max() ?? 1
        let values = (0..<most).map { Payload.text(Self.valueSize, seed: $0) }
        // Every writer's key exists before the first sample, as an overwrite is what is measured.
        for writer in 0..<most {
            try await fileStore.write(StorageKey(.chats, Payload.id("w", writer)), values[writer])
            try await sqlite.put(Payload.id("w", writer), Array(values[writer].utf8))
            try RawFile.replaceWithTwoFlushes(in: raw, name: Payload.id("w", writer), Array(values[writer].utf8))
        }
        RawFile.flushEverything()
        let writes = scale.writesPerWriter
        let bytes = values.map { Array($0.utf8) }
        var threads: [Int: WriterThreads] = [:]
        for writers in scale.writerCounts {
            threads[writers] = WriterThreads(count: writers) { writer throws(StorageError) in
                for _ in 0..<writes {
                    try RawFile.replaceWithTwoFlushes(
                        in: raw, name: Payload.id("w", writer), bytes[writer], tempName: ".raw-tmp-\(writer)")
                }
            }
        }
        let writerThreads = threads
        let comparisons = scale.writerCounts.map { writers in
            Comparison(
                title: Self.title(writers), metric: .throughput, operation: "write", baseline: Self.sqlite,
                contenders: [
                    Contender(Self.fileStore, count: writers, operationsPerSample: writers * writes) {
                        try await Self.together(writers, times: writes) { writer in
                            try await fileStore.write(StorageKey(.chats, Payload.id("w", writer)), values[writer])
                        }
                    },
                    Contender(
                        Self.withoutGroupCommit, note: "each write flushes the directory", count: writers,
                        operationsPerSample: writers * writes
                    ) {
                        try await Self.together(writers, times: writes) { writer in
                            try await eachFlushes.write(StorageKey(.chats, Payload.id("w", writer)), values[writer])
                        }
                    },
                    Contender(
                        Self.rawFloor, note: "a thread per writer, straight POSIX: what the disk allows",
                        count: writers, operationsPerSample: writers * writes
                    ) {
                        try writerThreads[writers]?.run()
                    },
                    Contender(
                        Self.sqlite, note: "one row per transaction", count: writers,
                        operationsPerSample: writers * writes
                    ) {
                        try await Self.together(writers, times: writes) { writer in
                            try await sqlite.put(Payload.id("w", writer), bytes[writer])
                        }
                    },
                ])
        }
        return .ready(comparisons) { for threads in writerThreads.values { threads.stop() } }
    }

    /// `writers` tasks at once, each making `times` writes with `write(writer)`.
    private static func together(
        _ writers: Int, times: Int, _ write: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for _ in 0..<times { try await write(writer) }
                }
            }
            try await group.waitForAll()
        }
    }
}
