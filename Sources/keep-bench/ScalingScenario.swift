import KeepFileStore
import KeepPorts

/// The cost of writing one 1 KiB key when its namespace already holds 10, 1,000, 10,000
/// and 100,000 keys: the file store, which writes one file whatever the count, against
/// the whole-blob store, which rewrites every key on every write.
///
/// The keys are laid down raw, in the stores' own formats and without a flush per file
/// (one `sync` at the end), since writing 100,000 keys one durable write at a time, or
/// the blob one key at a time, would take hours. The measured write overwrites one of
/// them, so the count stays put. The whole-blob store at 100,000 keys rewrites about
/// 100 MB per write: its samples are bounded.
struct ScalingScenario: Scenario {
    let id = ScenarioID.scaling
    static let valueSize = 1024

    static let fileStoreTitle = "write one key, file store"
    static let blobStoreTitle = "write one key, whole-blob store"

    static func fileStore(_ count: Int) -> String { "file store, \(Format.count(count)) keys" }
    static func blobStore(_ count: Int) -> String { "whole-blob store, \(Format.count(count)) keys" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        var files: [Contender] = []
        var blobs: [Contender] = []
        let key = StorageKey(.chats, Payload.id("k", 0))
        let text = Payload.text(Self.valueSize, seed: -1)
        for count in scale.scalingCounts {
            let root = directory + "/files-\(count)"
            let namespace = root + "/store/chats"
            try RawFile.makeDirectories(namespace)
            for index in 0..<count {
                try RawFile.create(
                    namespace + "/" + Payload.id("k", index), Payload.bytes(Self.valueSize, seed: index))
            }
            let fileStore = try FileStore(root: root)
            files.append(Contender(Self.fileStore(count), count: count) { try await fileStore.write(key, text) })

            let blobRoot = directory + "/blob-\(count)"
            try RawFile.makeDirectories(blobRoot)
            try RawFile.create(blobRoot + "/store.json", Self.blob(count: count))
            let blobStore = try BlobFileStore(root: blobRoot)
            let bounded = count >= 100_000
            blobs.append(
                Contender(
                    Self.blobStore(count), count: count, sampleLimit: bounded ? scale.boundedRepetitions : nil
                ) { try await blobStore.write(key, text) })
        }
        RawFile.flushEverything()
        guard let first = scale.scalingCounts.first else { return .skipped("no key counts to measure") }
        return .ready([
            Comparison(
                title: Self.fileStoreTitle, metric: .latency, operation: "write", baseline: Self.fileStore(first),
                contenders: files),
            Comparison(
                title: Self.blobStoreTitle, metric: .latency, operation: "write", baseline: Self.blobStore(first),
                contenders: blobs),
        ])
    }

    /// `store.json` holding `count` chats, as the whole-blob store writes it.
    private static func blob(count: Int) -> [UInt8] {
        var out = Array("{\n".utf8)
        out.reserveCapacity(count * (valueSize + 32))
        for index in 0..<count {
            out += Array("  \"keep.chats.\(Payload.id("k", index))\": \"".utf8)
            out += Payload.bytes(valueSize, seed: index)
            out += Array((index == count - 1 ? "\"\n" : "\",\n").utf8)
        }
        return out + Array("}\n".utf8)
    }
}
