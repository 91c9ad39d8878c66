import Foundation
import KeepCore
import KeepFileStore
import KeepPorts

/// Reading one chat, and listing every chat, with 10,000 chats of about 2 KiB stored: the
/// file store and KeepCore's chat list against reading the files raw, with SQLite and
/// the whole-blob store beside them.
///
/// The chats are real ones, in ``KeepCore/ChatRepository``'s own format (two turns each),
/// laid down raw as in the scaling scenario. All reads are warm (the files are in the page
/// cache after the first round): what an app sees when it lists its chats a second time.
struct ReadsScenario: Scenario {
    let id = ScenarioID.reads

    static let rawRead = "raw read: open, read, close"
    static let fileStoreRead = "file store read"
    static let sqliteRead = "SQLite SELECT by key"
    static let blobRead = "whole-blob store read"

    static let rawList = "raw: read every file (readdir, open, read, close)"
    static let rawNames = "raw: readdir, names only"
    static let listIds = "file store listIds"
    static let listAndRead = "file store listIds, then read each"
    static let chatList = "chat list (KeepCore ChatRepository.list)"
    static let blobList = "whole-blob store listIds"

    static func readTitle(_ count: Int) -> String { "read one chat (about 2 KiB) among \(Format.count(count))" }
    static func listTitle(_ count: Int) -> String { "list \(Format.count(count)) chats" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let count = scale.chatCount
        let chats = try await ChatFixtures.make(count)
        let root = directory + "/files"
        let namespace = try ChatFixtures.layDown(chats, under: root)
        var blob = Array("{\n".utf8)
        for (index, chat) in chats.enumerated() {
            let value = try JSONEncoder().encode(String(decoding: chat.bytes, as: UTF8.self))
            blob +=
                Array("  \"keep.chats.\(chat.id)\": ".utf8) + value + Array((index == count - 1 ? "\n" : ",\n").utf8)
        }
        try RawFile.makeDirectories(directory + "/blob")
        try RawFile.create(directory + "/blob/store.json", blob + Array("}\n".utf8))
        let sqlite = try SQLiteKeyValue(path: directory + "/sqlite.db")
        try await sqlite.fill(chats.map { (key: $0.id, value: $0.bytes) })
        RawFile.flushEverything()

        let fileStore = try FileStore(root: root)
        let repository = ChatRepository(storage: fileStore)
        let blobStore = try BlobFileStore(root: directory + "/blob")
        let middle = chats[count / 2].id
        let key = StorageKey(.chats, middle)
        let reads = 100
        let blobBound = count >= 10_000 ? scale.boundedRepetitions : nil
        let blobNote = "parses the whole file"

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
                Contender(
                    Self.chatList, note: "reads and decodes every chat, sorts them",
                    sampleLimit: scale.slowRepetitions
                ) {
                    _ = try await repository.list()
                },
                Contender(Self.blobList, note: blobNote, sampleLimit: blobBound) {
                    _ = try await blobStore.listIds(.chats)
                },
            ])
        return .ready([read, list])
    }
}
