import Foundation
import KeepFileStore
import KeepPorts

/// One durable write of a 1 KiB and a 64 KiB value, overwriting a key, by the file store
/// and by what a developer might use instead, against the floor the disk allows.
///
/// Every store holds ten keys of the value's size; the measured write overwrites one of
/// them. The baseline is the two-flush floor: the calls an atomic, durable replace cannot
/// do without (write and fsync a temp, rename, fsync the directory), made raw. The
/// one-flush floor (write and fsync in place, not atomic) shows what the second flush
/// costs; Foundation's atomic write shows what skipping both costs, and is NOT DURABLE.
struct DurableWriteScenario: Scenario {
    let id = ScenarioID.durableWrite
    static let sizes = [1024, 65_536]

    static let twoFlushFloor = "two-flush floor (raw)"
    static let oneFlushFloor = "one-flush floor: in place (raw)"
    static let fileStore = "file store"
    static let sqlite = "SQLite WAL, synchronous=FULL"
    static let blobStore = "whole-blob store"
    static let foundation = "Foundation Data.write(.atomic)"
    static let keysHeld = 10

    static func title(_ size: Int) -> String { "durable write, \(Payload.label(size))" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        var comparisons: [Comparison] = []
        for size in Self.sizes {
            comparisons.append(try await comparison(size: size, in: directory + "/\(size)"))
        }
        RawFile.flushEverything()
        return .ready(comparisons)
    }

    private func comparison(size: Int, in directory: String) async throws -> Comparison {
        let value = Payload.bytes(size)
        let text = Payload.text(size)
        let key = StorageKey(.chats, "c000000")
        try RawFile.makeDirectories(directory)

        let fileStore = try FileStore(root: directory + "/filestore")
        let blobStore = try BlobFileStore(root: directory + "/blob")
        let sqlite = try SQLiteKeyValue(path: directory + "/sqlite.db")
        for index in 0..<Self.keysHeld {
            let id = Payload.id("c", index)
            try await fileStore.write(StorageKey(.chats, id), Payload.text(size, seed: index))
            try await blobStore.write(StorageKey(.chats, id), Payload.text(size, seed: index))
            try await sqlite.put(id, Payload.bytes(size, seed: index))
        }
        let raw = directory + "/raw"
        try RawFile.makeDirectories(raw)
        try RawFile.replaceWithTwoFlushes(in: raw, name: "c000000", value)
        let inPlace = try OpenDescriptor(writing: directory + "/in-place")
        try RawFile.overwriteInPlace(inPlace.descriptor, path: inPlace.path, value)
        let foundation = URL(fileURLWithPath: directory + "/foundation-c000000")
        let data = Data(value)

        return Comparison(
            title: Self.title(size), metric: .latency, operation: "write", baseline: Self.twoFlushFloor,
            contenders: [
                Contender(Self.twoFlushFloor) { try RawFile.replaceWithTwoFlushes(in: raw, name: "c000000", value) },
                Contender(Self.oneFlushFloor, note: "not atomic") {
                    try RawFile.overwriteInPlace(inPlace.descriptor, path: inPlace.path, value)
                },
                Contender(Self.fileStore) { try await fileStore.write(key, text) },
                Contender(Self.sqlite, note: "one row per transaction") { try await sqlite.put(key.id, value) },
                Contender(Self.blobStore, note: "\(Self.keysHeld) keys in the file") {
                    try await blobStore.write(key, text)
                },
                Contender(Self.foundation, note: "NOT DURABLE") { try data.write(to: foundation, options: .atomic) },
            ])
    }
}
