import Foundation
import KeepConformance
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("The file store")
struct FileStoreTests {
    @Test("the file store honours the whole storage contract", arguments: StorageContract.cases)
    func honoursTheStorageContract(_ rule: StorageContract.Case) async throws {
        let directory = try TemporaryDirectory()
        try await rule.check { try FileStore(root: directory.appending(UUID().uuidString)) }
    }

    @Test("a concurrent reader never sees a torn value", arguments: [256 * 1024, 1024 * 1024])
    func aConcurrentReaderNeverSeesATornValue(size: Int) async throws {
        let directory = try TemporaryDirectory()
        let report = try await TornReadProbe.run(on: try FileStore(root: directory.path), size: size)
        #expect(report.reads > 0, "the reader read nothing")
        #expect(
            report.problems.isEmpty,
            "\(report.problems.count) of \(report.reads) reads were torn, the first: \(report.problems.first ?? "")")
    }

    @Test("a multi-megabyte value written by ten concurrent writers always reads back whole")
    func multiMegabyteValuesReadBackWhole() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let size = 4 * 1024 * 1024 + 17
        let key = StorageKey(.chats, "big")
        let written = (0..<10).map { MarkedValue.make(writer: $0, round: 0, size: size) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in written {
                group.addTask { try await store.write(key, value) }
            }
            try await group.waitForAll()
        }
        let last = try #require(try await store.read(key))
        #expect(written.contains(last), "the value read back is none of the ten written whole")
        #expect(try await store.listIds(.chats) == ["big"])
        #expect(RawDisk.names(directory.appending("store/chats")) == ["big"], "a temp file was left behind")
    }

    @Test("ids differing only in case are different chats")
    func idsDifferingOnlyInCaseAreDifferentChats() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let values = ["Chat-A": "title case", "chat-a": "lower case", "CHAT-A": "upper case"]
        for (id, value) in values {
            try await store.write(StorageKey(.chats, id), value)
        }
        for (id, value) in values {
            #expect(try await store.read(StorageKey(.chats, id)) == value, "read of \(id)")
        }
        #expect(try await store.listIds(.chats).sorted() == values.keys.sorted())
        #expect(RawDisk.names(directory.appending("store/chats")) == ["chat-a", "~43hat-~41", "~43~48~41~54-~41"])
    }

    @Test(
        "an unknown namespace is refused rather than created",
        arguments: ["secrets", "Chats", "chats ", " chats", "../chats", "", "store", "chats/../drafts", "keys", "."])
    func anUnknownNamespaceIsRefusedRatherThanCreated(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let error = #expect(throws: StorageError.self) { try Namespace.parse(name) }
        #expect(error?.code == .unknownNamespace)
        #expect(error?.description.contains(StorageError.quoted(name)) == true, "the error names \(name)")
        #expect(RawDisk.tree(directory.path) == [], "something was created for \(name)")

        // The pair: a namespace of the closed set is accepted, and only a write creates it.
        let known = try Namespace.parse("drafts")
        #expect(try await store.listIds(known) == [])
        #expect(RawDisk.tree(directory.path) == [])
        try await store.write(StorageKey(known, "d1"), "draft")
        #expect(RawDisk.tree(directory.path) == ["store", "store/drafts", "store/drafts/d1"])
    }

    @Test("reading, listing, removing and clearing never create anything")
    func readsNeverCreateAnything() async throws {
        let directory = try TemporaryDirectory()
        let absentRoot = directory.appending("not-yet")
        for root in [absentRoot, directory.path] {
            let store = try FileStore(root: root)
            for namespace in Namespace.allCases {
                #expect(try await store.read(StorageKey(namespace, "x")) == nil)
                #expect(try await store.listIds(namespace) == [])
                try await store.remove(StorageKey(namespace, "x"))
                try await store.clear(namespace)
            }
        }
        #expect(RawDisk.tree(directory.path) == [])

        // The pair: a write creates the root, the store and the namespace directories it needs.
        try await FileStore(root: absentRoot).write(StorageKey(.cache, "c"), "v")
        #expect(
            RawDisk.tree(directory.path) == [
                "not-yet", "not-yet/store", "not-yet/store/cache", "not-yet/store/cache/c",
            ])
    }

    @Test(
        "a path-traversal id stays inside its namespace",
        arguments: [
            ("../../boot", "~2e~2e~2f~2e~2e~2fboot"), ("..", "~2e~2e"), (".", "~2e"),
            ("../settings/x", "~2e~2e~2fsettings~2fx"),
            ("/etc/passwd", "~2fetc~2fpasswd"), ("a/../../b", "a~2f~2e~2e~2f~2e~2e~2fb"),
            ("..\\..\\boot", "~2e~2e~5c~2e~2e~5cboot"), ("~2e~2e~2f", "~7e2e~7e2e~7e2f"),
            ("%2e%2e%2f", "~252e~252e~252f"),
            ("\u{0}../x", "~00~2e~2e~2fx"),
            ("chats/../../../../tmp/x", "chats~2f~2e~2e~2f~2e~2e~2f~2e~2e~2f~2e~2e~2ftmp~2fx"),
        ])
    func aPathTraversalIdStaysInsideItsNamespace(_ id: String, _ fileName: String) async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.appending("root"))
        try await store.write(StorageKey(.chats, id), "kept inside")
        #expect(
            RawDisk.tree(directory.path) == ["root", "root/store", "root/store/chats", "root/store/chats/\(fileName)"])
        #expect(try await store.read(StorageKey(.chats, id)) == "kept inside")
        #expect(try await store.listIds(.chats) == [id])
        try await store.remove(StorageKey(.chats, id))
        #expect(RawDisk.tree(directory.path) == ["root", "root/store", "root/store/chats"])
    }

    @Test("writing one chat never rewrites another")
    func writingOneChatNeverRewritesAnother() async throws {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem()
        let store = try FileStore(root: directory.path, calls: recorder)
        try await store.write(StorageKey(.chats, "c1"), "first chat")
        try await store.write(StorageKey(.chats, "c2"), "second chat")
        let other = directory.appending("store/chats/c2")
        let before = RawDisk.identity(other)
        recorder.reset()

        for round in 0..<3 {
            try await store.write(StorageKey(.chats, "c1"), "first chat, edit \(round)")
        }
        let calls = recorder.calls
        // The scan sees a path when a call names it: the rewritten chat's own file is there.
        #expect(calls.contains { Self.names($0, directory.appending("store/chats/c1")) })
        #expect(
            !calls.contains { Self.names($0, other) }, "a call touched c2: \(calls.filter { Self.names($0, other) })")
        #expect(RawDisk.identity(other) == before, "c2's file was replaced or modified")
        #expect(try await store.read(StorageKey(.chats, "c2")) == "second chat")
    }

    @Test("an empty string is a value, not an absence")
    func anEmptyStringIsAValue() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let key = StorageKey(.drafts, "blank")
        try await store.write(key, "some text")
        try await store.write(key, "")
        #expect(RawDisk.bytes(directory.appending("store/drafts/blank")) == [], "an empty value is an empty file")
        #expect(try await store.read(key) == "")
        #expect(try await store.listIds(.drafts) == ["blank"])
        // The pair: an absent key is nil, not "".
        try await store.remove(key)
        #expect(try await store.read(key) == nil)
        #expect(RawDisk.bytes(directory.appending("store/drafts/blank")) == nil)
    }

    @Test("a leftover temp file is never listed as a chat")
    func aLeftoverTempFileIsNeverListed() async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let store = try FileStore(root: directory.path)
        let ids = ["c1", ".keep-tmp-0123456789abcdef0123456789abcdef", ".hidden"]
        for id in ids {
            try await store.write(StorageKey(.chats, id), "value of \(id)")
        }
        let leftovers = [".keep-tmp-00000000000000000000000000000000", ".keep-tmp-partial", ".tmp-other-tool"]
        for name in leftovers {
            try RawDisk.plant(chats + "/" + name, Array("half a value".utf8))
        }
        // The positive: the leftovers are really there beside the values.
        #expect(Set(leftovers).isSubset(of: RawDisk.names(chats)))
        #expect(try await store.listIds(.chats).sorted() == ids.sorted())
        for id in ids {
            #expect(try await store.read(StorageKey(.chats, id)) == "value of \(id)")
        }
    }

    @Test(
        "a value is its UTF-8 bytes and nothing else",
        arguments: [
            "hello", "", "line\n", "crlf\r\n", "lone cr\r", "nul\u{0}inside", "\u{FEFF}starts with a BOM",
            "e\u{301} decomposed",
            "\u{E9} composed", "🙂👩‍👩‍👧", "{\"json\": [1, 2]}", "trailing spaces   ", "\u{7F}\u{1}\u{1B}[31m",
            String(repeating: "ü", count: 100_000),
        ])
    func aValueIsItsUTF8Bytes(_ value: String) async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.cache, "v"), value)
        #expect(RawDisk.bytes(directory.appending("store/cache/v")) == Array(value.utf8))
        let read = try #require(try await store.read(StorageKey(.cache, "v")))
        #expect(Array(read.utf8) == Array(value.utf8), "read back with different bytes")
    }

    @Test(
        "a file that is not valid UTF-8 reads as corrupt, and is left as it is",
        arguments: [
            [0xff], [0x61, 0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x6f, 0x6b, 0xfe],
        ]
            as [[UInt8]])
    func aFileThatIsNotUTF8IsCorrupt(_ bytes: [UInt8]) async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "good"), "fine")
        let path = directory.appending("store/chats/bad")
        try RawDisk.plant(path, bytes)
        let error = await #expect(throws: StorageError.self) { try await store.read(StorageKey(.chats, "bad")) }
        #expect(error?.code == .corrupt)
        #expect(error?.description.contains(path) == true)
        #expect(RawDisk.bytes(path) == bytes, "the unreadable file was changed")
        // The pair: its sibling reads, and both are listed.
        #expect(try await store.read(StorageKey(.chats, "good")) == "fine")
        #expect(try await store.listIds(.chats).sorted() == ["bad", "good"])
    }

    @Test("something other than a file at a key's name is an error, not a crash or a hang")
    func somethingOtherThanAFileIsAnError() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let chats = directory.appending("store/chats")
        try FileManager.default.createDirectory(atPath: chats + "/folder", withIntermediateDirectories: true)
        #expect(mkfifo(chats + "/pipe", 0o600) == 0)
        for id in ["folder", "pipe"] {
            let error = await #expect(throws: StorageError.self) { try await store.read(StorageKey(.chats, id)) }
            #expect(error?.code == .corrupt, "read of \(id)")
        }
    }

    @Test("a symlink planted at a key's name is never followed")
    func aSymlinkIsNeverFollowed() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.appending("root"))
        let outside = directory.appending("outside.txt")
        try RawDisk.plant(outside, Array("not the store's".utf8))
        let link = directory.appending("root/store/chats/link")
        try FileManager.default.createDirectory(
            atPath: directory.appending("root/store/chats"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)

        let error = await #expect(throws: StorageError.self) { try await store.read(StorageKey(.chats, "link")) }
        #expect(error?.errno == ELOOP)
        try await store.write(StorageKey(.chats, "link"), "replaced")
        #expect(RawDisk.bytes(outside) == Array("not the store's".utf8), "the write went through the link")
        #expect(try await store.read(StorageKey(.chats, "link")) == "replaced")
    }

    @Test("directories are created 0700 and files 0600")
    func modes() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("root")
        let store = try FileStore(root: root)
        try await store.write(StorageKey(.settings, "settings"), "{}")
        try await store.write(StorageKey(.settings, "settings"), "{\"again\": true}")
        for path in [root, root + "/store", root + "/store/settings"] {
            #expect(RawDisk.mode(path) == 0o700, "\(path)")
        }
        #expect(RawDisk.mode(root + "/store/settings/settings") == 0o600)
    }

    @Test("a store's root must be an absolute path", arguments: ["", "relative", "./here", "~/keep", "a/b/"])
    func aRootMustBeAbsolute(_ root: String) throws {
        let error = #expect(throws: StorageError.self) { try FileStore(root: root) }
        #expect(error?.code == .unavailable)
        #expect(error?.description.contains("absolute") == true)
        // The pair: an absolute root, even with a trailing slash, is accepted.
        let directory = try TemporaryDirectory()
        #expect(try FileStore(root: directory.path + "/").root == directory.path)
    }

    /// Reads `key` until `done` is set (at least once), counting reads and torn values. It
    /// never yields: run it on a thread of its own.
    /// Whether `call` names `path`, as its subject or as a rename's destination.
    private static func names(_ call: FileSystemCall, _ path: String) -> Bool {
        if case .rename(let from, let to) = call { return from == path || to == path }
        return call.path == path
    }
}
