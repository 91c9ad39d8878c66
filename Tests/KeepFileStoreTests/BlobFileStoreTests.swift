import Foundation
import KeepConformance
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Testing

@Suite("The legacy whole-blob store")
struct BlobFileStoreTests {
    @Test("the legacy store honours the whole storage contract", arguments: StorageContract.cases)
    func honoursTheStorageContract(_ rule: StorageContract.Case) async throws {
        let directory = try TemporaryDirectory()
        try await rule.check { try BlobFileStore(root: directory.appending(UUID().uuidString)) }
    }

    @Test("the legacy store honours the append contract", arguments: AppendContract.cases)
    func honoursTheAppendContract(_ rule: AppendContract.Case) async throws {
        let directory = try TemporaryDirectory()
        try await rule.check { try BlobFileStore(root: directory.appending(UUID().uuidString)) }
    }

    @Test("the legacy store keeps every key under the keep. prefix")
    func keysCarryTheKeepPrefix() async throws {
        let directory = try TemporaryDirectory()
        let store = try BlobFileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "c1"), "a chat")
        try await store.write(StorageKey(.settings, "settings"), "{\"engineId\": \"echo\"}")
        try await store.write(StorageKey(.drafts, "with.dots"), "")
        #expect(store.path == directory.appending("store.json"))

        let raw = try #require(RawDisk.bytes(store.path))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(raw)) as? [String: String])
        #expect(
            object == [
                "keep.chats.c1": "a chat", "keep.settings.settings": "{\"engineId\": \"echo\"}",
                "keep.drafts.with.dots": "",
            ])
        #expect(object.keys.allSatisfy { $0.hasPrefix("keep.") })
    }

    @Test(
        "a corrupt legacy file is a typed error and is never written over",
        arguments: [
            "", " ", "not json", "[1, 2]", "\"a string\"", "null", "{\"keep.chats.c1\": \"cut", "{\"a\": 1} {}",
            "{\"a\": 1,}", "{'a': 1}", "{\"a\": 01}", "{\"a\": [1, 2}", "{\"a\": \"tab\there\"}", "{\"a\": \"\\x\"}",
            "\u{FEFF}{}", "{\"a\": tru}", "{\"a\": -}", "{\"a\": 1.}", "{\"a\": 1e}",
        ].map { Array($0.utf8) } + [[0x7b, 0xff, 0x7d], [0x00]])
    func aCorruptFileIsNeverWrittenOver(_ content: [UInt8]) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("store.json")
        try RawDisk.plant(path, content)
        let store = try BlobFileStore(root: directory.path)
        let key = StorageKey(.chats, "c1")
        let operations: [(String, @Sendable () async throws -> Void)] = [
            ("read", { _ = try await store.read(key) }), ("write", { try await store.write(key, "new") }),
            ("remove", { try await store.remove(key) }), ("listIds", { _ = try await store.listIds(.chats) }),
            ("clear", { try await store.clear(.chats) }),
        ]
        for (name, operation) in operations {
            let error = await #expect(throws: StorageError.self, "\(name)") { try await operation() }
            #expect(error?.code == .corrupt, "\(name)")
            #expect(error?.path == path)
        }
        #expect(RawDisk.bytes(path) == content, "the corrupt file was changed")
        #expect(RawDisk.names(directory.path) == ["store.json"])
    }

    @Test("entries that are not Keep's are written back byte for byte and never listed")
    func foreignEntriesArePreserved() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("store.json")
        let foreign = [
            "\"other.app\": {\"nested\": [1, 2.50, -0.0e+0, true, null, \"s\"],   \"deep\": {}}",
            "\"keep.secrets.x\": \"an unknown namespace\"", "\"keep.chats.\": \"an empty id\"",
            "\"keep.Chats.x\": \"not a namespace\"", "\"keepchats\": 12345678901234567890123",
            "\"lone \\ud800 surrogate\": \"x\"", "\"\": []",
        ]
        let original = "{\n\t" + (foreign + ["\"keep.chats.c1\": \"mine\""]).joined(separator: ",\n\t") + "\n}"
        try RawDisk.plant(path, Array(original.utf8))
        let store = try BlobFileStore(root: directory.path)

        #expect(try await store.listIds(.chats) == ["c1"])
        for namespace in [Namespace.settings, .drafts, .cache] { #expect(try await store.listIds(namespace) == []) }
        try await store.write(StorageKey(.chats, "c2"), "also mine")
        try await store.remove(StorageKey(.chats, "c1"))
        try await store.clear(.drafts)

        let rewritten = String(decoding: try #require(RawDisk.bytes(path)), as: UTF8.self)
        for entry in foreign {
            #expect(rewritten.contains(entry), "\(entry) was not kept as it was")
        }
        #expect(!rewritten.contains("keep.chats.c1"))
        #expect(try await store.read(StorageKey(.chats, "c2")) == "also mine")
        #expect(try await BlobFileStore(root: directory.path).listIds(.chats) == ["c2"])
    }

    @Test("a Keep entry whose value is not a string is listed, and reading it is corrupt")
    func aNonStringValueIsCorrupt() async throws {
        let directory = try TemporaryDirectory()
        try RawDisk.plant(directory.appending("store.json"), Array(#"{"keep.chats.n": 5, "keep.chats.s": "ok"}"#.utf8))
        let store = try BlobFileStore(root: directory.path)
        #expect(try await store.listIds(.chats).sorted() == ["n", "s"])
        let error = await #expect(throws: StorageError.self) { try await store.read(StorageKey(.chats, "n")) }
        #expect(error?.code == .corrupt)
        #expect(error?.description.contains("keep.chats.n") == true)
        // The pair: a string beside it reads, and writing the broken key replaces it.
        #expect(try await store.read(StorageKey(.chats, "s")) == "ok")
        try await store.write(StorageKey(.chats, "n"), "fixed")
        #expect(try await store.read(StorageKey(.chats, "n")) == "fixed")
    }

    @Test(
        "JSON escapes in a legacy file decode to the value",
        arguments: [
            (#""caf\u00e9""#, "café"), (#""\ud83d\ude42""#, "🙂"), (#""a\/b\\c\"d""#, "a/b\\c\"d"),
            (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"), (#""\u0000""#, "\u{0}"), (#""raw é 🙂""#, "raw é 🙂"),
        ])
    func escapesDecode(_ json: String, _ value: String) async throws {
        let directory = try TemporaryDirectory()
        try RawDisk.plant(directory.appending("store.json"), Array("{\"keep.cache.k\": \(json)}".utf8))
        let store = try BlobFileStore(root: directory.path)
        let read = try #require(try await store.read(StorageKey(.cache, "k")))
        #expect(Array(read.utf8) == Array(value.utf8))
    }

    @Test("a lone surrogate in a Keep value reads as corrupt")
    func aLoneSurrogateIsCorrupt() async throws {
        let directory = try TemporaryDirectory()
        try RawDisk.plant(directory.appending("store.json"), Array(#"{"keep.cache.k": "\udc00 alone"}"#.utf8))
        let store = try BlobFileStore(root: directory.path)
        let error = await #expect(throws: StorageError.self) { try await store.read(StorageKey(.cache, "k")) }
        #expect(error?.code == .corrupt)
    }

    @Test("a value the legacy store writes is JSON any parser reads back")
    func writtenValuesAreValidJSON() async throws {
        let directory = try TemporaryDirectory()
        let store = try BlobFileStore(root: directory.path)
        let values = [
            "quote \" backslash \\ slash /", "controls \u{0}\u{1}\u{1F}\u{7F}", "lines\n\r\n", "é e\u{301} 🙂 \u{2028}",
            "", "\u{FEFF}bom",
        ]
        for (index, value) in values.enumerated() { try await store.write(StorageKey(.cache, "v\(index)"), value) }
        let raw = try #require(RawDisk.bytes(store.path))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(raw)) as? [String: String])
        for (index, value) in values.enumerated() {
            #expect(object["keep.cache.v\(index)"].map { Array($0.utf8) } == Array(value.utf8), "value \(index)")
        }
    }

    @Test("duplicate keys read as the last one, and a write leaves one")
    func duplicateKeys() async throws {
        let directory = try TemporaryDirectory()
        try RawDisk.plant(
            directory.appending("store.json"), Array(#"{"keep.chats.a": "first", "x": 1, "keep.chats.a": "last"}"#.utf8)
        )
        let store = try BlobFileStore(root: directory.path)
        #expect(try await store.read(StorageKey(.chats, "a")) == "last")
        #expect(try await store.listIds(.chats) == ["a"])
        try await store.write(StorageKey(.chats, "a"), "only")
        let raw = String(decoding: try #require(RawDisk.bytes(store.path)), as: UTF8.self)
        #expect(raw.components(separatedBy: "keep.chats.a").count == 2)
        #expect(raw.contains("\"x\": 1"))
    }

    @Test("deeply nested foreign values are kept without exhausting the stack")
    func deepNesting() async throws {
        let directory = try TemporaryDirectory()
        let depth = 200_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        try RawDisk.plant(directory.appending("store.json"), Array("{\"deep\": \(nested)}".utf8))
        let store = try BlobFileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "c"), "v")
        let raw = String(decoding: try #require(RawDisk.bytes(store.path)), as: UTF8.self)
        #expect(raw.contains(nested))
    }

    @Test("the legacy store rewrites its one file through the same atomic write path")
    func theSameWritePath() async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem()
        let store = try BlobFileStore(root: directory.path, calls: recorder)
        try await store.write(StorageKey(.chats, "c1"), "one")
        recorder.reset()
        try await store.write(StorageKey(.chats, "c2"), "two")
        let expected = "{\n  \"keep.chats.c1\": \"one\",\n  \"keep.chats.c2\": \"two\"\n}\n"
        try WritePathTests.expectAtomicReplace(
            recorder.calls, directory: directory.path, name: "store.json", byteCount: expected.utf8.count)
        #expect(RawDisk.bytes(store.path) == Array(expected.utf8))
    }

    @Test("reading, listing and removing never create the legacy file")
    func readsNeverCreate() async throws {
        let directory = try TemporaryDirectory()
        let store = try BlobFileStore(root: directory.appending("absent"))
        #expect(try await store.read(StorageKey(.chats, "c1")) == nil)
        #expect(try await store.listIds(.chats) == [])
        try await store.remove(StorageKey(.chats, "c1"))
        try await store.clear(.chats)
        #expect(RawDisk.tree(directory.path) == [])
    }
}
