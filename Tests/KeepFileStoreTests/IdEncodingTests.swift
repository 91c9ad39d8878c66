import Foundation
import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

@Suite("The id encoding")
struct IdEncodingTests {
    @Test(
        "an id is escaped into one flat file name, as the design's table says",
        arguments: [
            ("../../boot", "~2e~2e~2f~2e~2e~2fboot"), ("Chat-A", "~43hat-~41"), ("chat-a", "chat-a"),
            ("a-z_0-9", "a-z_0-9"), ("~", "~7e"), (".", "~2e"), (" ", "~20"), ("\u{0}", "~00"), ("é", "~c3~a9"),
            ("🙂", "~f0~9f~99~82"), ("a~2e", "a~7e2e"), ("Z", "~5a"), ("\u{7F}", "~7f"),
        ])
    func theTableHolds(_ id: String, _ fileName: String) async throws {
        #expect(try IdEncoding.fileName(for: StorageKey(.chats, id), operation: "write") == fileName)
        #expect(IdEncoding.id(fromFileName: fileName) == id)
        let directory = try TemporaryDirectory()
        try await FileStore(root: directory.path).write(StorageKey(.chats, id), "v")
        #expect(RawDisk.names(directory.appending("store/chats")) == [fileName])
    }

    @Test("every id round-trips through its file name, and no two ids share one")
    func roundTripAndInjectivity() throws {
        var generator = SeededGenerator(seed: 0x6b65_6570)
        let ids = Self.fixedNastyIds + (0..<20_000).map { _ in Self.randomId(&generator) }
        var idForName: [String: String] = [:]
        for id in ids {
            let name: String
            do {
                name = try IdEncoding.fileName(for: StorageKey(.chats, id), operation: "write")
            } catch {
                #expect(error.code == .invalidId)
                #expect(id.isEmpty || Self.encodedLength(id) > 255, "refused \(StorageError.quoted(id)): \(error)")
                continue
            }
            #expect(name.utf8.allSatisfy(Self.isNameByte), "\(name) has a byte outside a-z 0-9 - _ ~")
            #expect(!name.hasPrefix("."), "\(name) looks like a temp file")
            #expect(name.utf8.count <= 255)
            #expect(IdEncoding.id(fromFileName: name) == id, "\(StorageError.quoted(id)) did not round-trip")
            if let other = idForName.updateValue(id, forKey: name) {
                #expect(other == id, "\(StorageError.quoted(other)) and \(StorageError.quoted(id)) share \(name)")
            }
        }
        #expect(idForName.count > 10_000, "too few distinct ids were tried")
    }

    @Test("nasty ids are stored, listed and read back through the store")
    func nastyIdsThroughTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        var generator = SeededGenerator(seed: 7)
        let ids = Set(Self.fixedNastyIds + (0..<150).map { _ in Self.randomId(&generator) }).filter {
            !$0.isEmpty && Self.encodedLength($0) <= 255
        }
        for id in ids {
            try await store.write(StorageKey(.drafts, id), "value of \(id)")
        }
        #expect(Set(try await store.listIds(.drafts)) == ids)
        for id in ids {
            #expect(try await store.read(StorageKey(.drafts, id)) == "value of \(id)")
        }
        #expect(RawDisk.tree(directory.path).allSatisfy { $0.hasPrefix("store") && !$0.contains("..") })
    }

    @Test(
        "ids Swift counts as equal are one key; ids it does not are two",
        arguments: [
            ("é", "e\u{301}", true), ("\u{212B}", "\u{C5}", true), ("e\u{323}\u{302}", "e\u{302}\u{323}", true),
            ("한", "\u{1112}\u{1161}\u{11AB}", true), ("ﬁ", "fi", false), ("Ａ", "A", false), ("ß", "ss", false),
            ("e\u{301}", "e", false),
        ])
    func canonicalEquivalence(_ first: String, _ second: String, _ equal: Bool) async throws {
        #expect((first == second) == equal, "the case itself is wrong")
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, first), "first")
        try await store.write(StorageKey(.chats, second), "second")
        #expect(try await store.read(StorageKey(.chats, first)) == (equal ? "second" : "first"))
        #expect(try await store.listIds(.chats).count == (equal ? 1 : 2))
        #expect(RawDisk.names(directory.appending("store/chats")).count == (equal ? 1 : 2))
    }

    @Test(
        "an id of 255 file-name bytes is kept whole; one past is refused, naming it",
        arguments: [
            (String(repeating: "a", count: 255), true), (String(repeating: "a", count: 256), false),
            (String(repeating: "A", count: 85), true), (String(repeating: "A", count: 86), false),
            (String(repeating: "a", count: 252) + "A", true), (String(repeating: "a", count: 253) + "A", false),
            (String(repeating: "🙂", count: 21), true), (String(repeating: "🙂", count: 22), false),
            (String(repeating: "e\u{301}", count: 42), true), (String(repeating: "é", count: 43), false),
            (String(repeating: "x", count: 100_000), false),
        ])
    func overLongIdsAreRefused(_ id: String, _ fits: Bool) async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let key = StorageKey(.chats, id)
        guard !fits else {
            try await store.write(key, "kept")
            #expect(try await store.read(key) == "kept")
            #expect(try await store.listIds(.chats) == [id])
            return
        }
        let operations: [(String, @Sendable () async throws -> Void)] = [
            ("write", { try await store.write(key, "never stored") }),
            ("read", { _ = try await store.read(key) }),
            ("remove", { try await store.remove(key) }),
        ]
        for (name, operation) in operations {
            let error = await #expect(throws: StorageError.self, "\(name)") { try await operation() }
            #expect(error?.code == .invalidId)
            #expect(error?.operation == name)
            #expect(error?.description.contains(String(id.prefix(40))) == true, "the error does not name the id")
            #expect(error?.description.contains("255") == true && error?.description.contains("truncated") == true)
        }
        #expect(RawDisk.tree(directory.path) == [])
    }

    @Test("an empty id is refused by every operation that takes one")
    func anEmptyIdIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let key = StorageKey(.settings, "")
        await #expect(throws: StorageError.self) { try await store.write(key, "v") }
        await #expect(throws: StorageError.self) { _ = try await store.read(key) }
        await #expect(throws: StorageError.self) { try await store.remove(key) }
        #expect(RawDisk.tree(directory.path) == [])
    }

    @Test(
        "a file name that is not a canonical encoding is never listed, and left alone",
        arguments: [
            "UPPER", "~2E", "~61", "~2d", "~", "~g0", "a~2", "~ff", "~c3", "~65~cc~81", "has space", "a.b", "é",
            "~ed~a0~80", "~c0~af", String(repeating: "a", count: 10) + "~",
        ])
    func aForeignNameIsNeverListed(_ name: String) async throws {
        #expect(IdEncoding.id(fromFileName: name) == nil)
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let store = try FileStore(root: directory.path)
        try await store.write(StorageKey(.chats, "real"), "v")
        try RawDisk.plant(chats + "/" + name, Array("someone else's".utf8))
        #expect(try await store.listIds(.chats) == ["real"])
        try await store.clear(.chats)
        #expect(RawDisk.names(chats) == [name])
    }

    @Test("a file name that is not UTF-8 is never listed")
    func aNameThatIsNotUTF8IsNeverListed() async throws {
        let directory = try TemporaryDirectory()
        let chats = directory.appending("store/chats")
        let store = try FileStore(root: directory.path)
        try RawDisk.plant(rawName: [0x61, 0xff, 0x62], in: chats)
        // The positive: the directory really holds a name.
        #expect((try? FileManager.default.contentsOfDirectory(atPath: chats))?.count == 1)
        #expect(try await store.listIds(.chats) == [])
    }

    // MARK: - Nasty ids

    static let fixedNastyIds: [String] = [
        "", "a", "A", "..", ".", "/", "//", "\\", "\u{0}", "\u{0}\u{0}", "~", "~~", "~7e", "~2E", "-", "_", " ", "\t",
        "\n",
        "\r\n", "%2e%2e", ".keep-tmp-0123", "CON", "nul", "aux.txt", "é", "e\u{301}", "\u{301}", "\u{301}start",
        "🙂", "👩‍👩‍👧", "🇫🇷", "\u{FEFF}", "\u{200B}", "\u{202E}evil", "\u{10FFFF}", "\u{FFFD}", "中文", "İ", "ı",
        "ß", "Σς", "ﬁ", "\u{7F}", String(repeating: "a", count: 255), String(repeating: "a", count: 256),
        String(repeating: "A", count: 85), String(repeating: "A", count: 86), String(repeating: "é", count: 42),
        String(repeating: "é", count: 43), String(repeating: "🙂", count: 21), String(repeating: "🙂", count: 22),
    ]

    static let pieces: [String] = [
        "a", "z", "0", "9", "-", "_", "A", "Z", "~", ".", "..", "/", "\\", "\u{0}", " ", "\t", "\n", "%", ":", "*",
        "é", "e\u{301}", "\u{301}", "\u{323}", "🙂", "👩‍👩‍👧", "\u{FEFF}", "\u{200B}", "ﬁ", "\u{212B}", "\u{C5}",
        "中", "\u{10FFFF}", "\u{FFFD}", "\u{7F}", "~2e", "~7e", "%2F", "İ", "ß", "ς", "\u{1112}\u{1161}", "한",
    ]

    static func randomId(_ generator: inout SeededGenerator) -> String {
        let count = Int.random(in: 1...14, using: &generator)
        return (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined()
    }

    /// The file-name length `id` needs: 1 byte per literal byte of its NFC form, 3 per other.
    static func encodedLength(_ id: String) -> Int {
        id._nfcCodeUnits.reduce(0) { $0 + (isLiteral($1) ? 1 : 3) }
    }

    static func isLiteral(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2d || byte == 0x5f
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        isLiteral(byte) || byte == UInt8(ascii: "~")
    }
}
