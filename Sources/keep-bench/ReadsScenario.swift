import KeepFileStore
import KeepPorts

/// Reading one chat, and listing every chat, with 10,000 chats of 2 KiB stored: the file
/// store against reading the files raw, with SQLite and the whole-blob store beside them.
///
/// All reads are warm (the files are in the page cache after the first round), which is
/// what an app that lists its chats at launch and again later sees after the first time.
/// The chats are laid down raw, as in the scaling scenario.
struct ReadsScenario: Scenario {
    let id = ScenarioID.reads
    static let valueSize = 2048

    static let rawRead = "raw read: open, read, close"
    static let fileStoreRead = "file store read"
    static let sqliteRead = "SQLite SELECT by key"
    static let blobRead = "whole-blob store read"

    static let rawList = "raw: read every file (readdir, open, read, close)"
    static let rawNames = "raw: readdir, names only"
    static let listIds = "file store listIds"
    static let listAndRead = "file store listIds, then read each"
    static let blobList = "whole-blob store listIds"
    static let chatList = "chat list (KeepCore ChatRepository.list)"

    static func readTitle(_ count: Int) -> String { "read one chat (2 KiB) among \(Format.count(count))" }
    static func listTitle(_ count: Int) -> String { "list \(Format.count(count)) chats" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let count = scale.chatCount
        let root = directory + "/files"
        let namespace = root + "/store/chats"
        try RawFile.makeDirectories(namespace)
        let sqlite = try SQLiteKeyValue(path: directory + "/sqlite.db")
        var blob = Array("{\n".utf8)
        for index in 0..<count {
            let id = Payload.id("c", index)
            let value = Payload.bytes(Self.valueSize, seed: index)
            try RawFile.create(namespace + "/" + id, value)
            blob +=
                Array("  \"keep.chats.\(id)\": \"".utf8) + value + Array((index == count - 1 ? "\"\n" : "\",\n").utf8)
        }
        try await sqlite.fill(count: count, prefix: "c", value: Payload.bytes(Self.valueSize))
        try RawFile.makeDirectories(directory + "/blob")
        try RawFile.create(directory + "/blob/store.json", blob + Array("}\n".utf8))
        RawFile.flushEverything()

        let fileStore = try FileStore(root: root)
        let blobStore = try BlobFileStore(root: directory + "/blob")
        let middle = Payload.id("c", count / 2)
        let key = StorageKey(.chats, middle)
        let reads = 100
        let blobBound = count >= 10_000 ? scale.boundedRepetitions : nil
        let blobNote = blobBound.map { "parses the whole file; bounded to \($0) samples" } ?? "parses the whole file"

        let read = Comparison(
            title: Self.readTitle(count), metric: .latency, operation: "read", baseline: Self.rawRead,
            contenders: [
                Contender(Self.rawRead, operationsPerSample: reads) {
                    for _ in 0..<reads { _ = try RawFile.read(namespace + "/" + middle) }
                },
                Contender(Self.fileStoreRead, operationsPerSample: reads) {
                    for _ in 0..<reads { _ = try await fileStore.read(key) }
                },
                Contender(Self.sqliteRead, operationsPerSample: reads) {
                    for _ in 0..<reads { _ = try await sqlite.get(middle) }
                },
                Contender(Self.blobRead, note: blobNote, sampleLimit: blobBound) { _ = try await blobStore.read(key) },
            ])
        let list = Comparison(
            title: Self.listTitle(count), metric: .latency, operation: "listing", baseline: Self.rawList,
            contenders: [
                Contender(Self.rawList) {
                    for name in try RawFile.names(in: namespace) { _ = try RawFile.read(namespace + "/" + name) }
                },
                Contender(Self.rawNames) { _ = try RawFile.names(in: namespace) },
                Contender(Self.listIds) { _ = try await fileStore.listIds(.chats) },
                Contender(Self.listAndRead) {
                    for id in try await fileStore.listIds(.chats) {
                        _ = try await fileStore.read(StorageKey(.chats, id))
                    }
                },
                Contender(Self.blobList, note: blobNote, sampleLimit: blobBound) {
                    _ = try await blobStore.listIds(.chats)
                },
            ],
            notMeasured: [
                NotMeasured(
                    name: Self.chatList,
                    reason: "KeepCore's ChatRepository has not landed on main yet; this row measures it once it has")
            ])
        return .ready([read, list])
    }
}
