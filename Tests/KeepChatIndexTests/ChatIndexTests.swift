import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite
import KeepTestSupport
import Testing

@testable import KeepChatIndex
@testable import KeepConversation

/// Chats in a file store of their own, with an index over them read through a store that
/// counts the chats it reads.
private struct Shelf {
    let directory: TemporaryDirectory
    let store: FileStore
    let counting: ReadCountingStorage
    let index: ChatIndex

    init() throws {
        directory = try TemporaryDirectory()
        store = try FileStore(root: directory.path)
        counting = ReadCountingStorage(store)
        index = ChatIndex(root: directory.path, storage: counting)
    }

    /// A chat `number` with one turn per text pair, stored; later numbers are newer.
    @discardableResult
    func save(
        _ number: Int, _ texts: [String] = ["a question", "an answer"], title: String? = nil
    ) async throws
        -> Chat
    {
        let time = Date(timeIntervalSince1970: 1_750_000_000 + Double(number) * 60)
        let chat = Chat(
            id: Self.id(number), title: title ?? "chat \(number)",
            messages: texts.enumerated().map {
                ChatMessage(role: $0.offset % 2 == 0 ? .user : .assistant, text: $0.element, time: time)
            }, created: time, updated: time, engine: number % 2 == 0 ? "echo" : nil)
        try await ChatRepository(storage: store).save(chat)
        return chat
    }

    static func id(_ number: Int) -> String { "20250601-000000-\(String(format: "%06x", number))" }

    func path(_ number: Int) -> String { directory.appending("store/chats/\(Self.id(number))") }

    /// Every chat file's modification time set an hour back, so the index trusts it.
    func age() throws {
        let chats = directory.appending("store/chats")
        for name in try FileManager.default.contentsOfDirectory(atPath: chats) {
            try setModified(chats + "/" + name, Date().addingTimeInterval(-3600))
        }
    }

    func setModified(_ path: String, _ date: Date) throws {
        let time = timespec(tv_sec: Int(date.timeIntervalSince1970), tv_nsec: 0)
        try setModified(path, time)
    }

    /// The file's modification time, to the nanosecond.
    func modified(_ path: String) throws -> timespec {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw StorageError.system("lstat", path: path, errno: errno) }
        return info.st_mtim
    }

    func setModified(_ path: String, _ time: timespec) throws {
        var times = [time, time]
        guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw StorageError.system("utimensat", path: path, errno: errno)
        }
    }

    /// The listing expected of `chats` and the unreadable `unreadable`, compared by id and
    /// summary (an unreadable chat's reason is the repository's to word).
    func expect(
        _ listing: ChatSummaryListing, chats: [Chat], unreadable: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            listing.chats == ChatSummaryListing(chats: chats.map(ChatSummary.init), unreadable: []).chats,
            sourceLocation: sourceLocation)
        #expect(listing.unreadable.map(\.id) == unreadable.sorted(), sourceLocation: sourceLocation)
    }

    /// `text` written over the file at `path` in place (same inode), as an editor might.
    func overwriteInPlace(_ path: String, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    /// The stored text of chat `number`.
    func text(_ number: Int) throws -> String {
        try String(contentsOfFile: path(number), encoding: .utf8)
    }
}

@Suite("The chat index: a cache beside the store")
struct ChatIndexTests {
    @Test("a listing from the index is the listing of every chat read, and a second one reads no chat")
    func listsFromTheIndex() async throws {
        let shelf = try Shelf()
        var chats: [Chat] = []
        for number in 1...5 { chats.append(try await shelf.save(number)) }
        chats.append(try await shelf.save(6, [], title: ""))
        try shelf.age()

        shelf.expect(try await shelf.index.listing(), chats: chats)
        #expect(shelf.counting.chatsRead.count == 6, "the first listing builds the index from every chat")
        #expect(FileManager.default.fileExists(atPath: shelf.index.path))

        shelf.expect(try await shelf.index.listing(), chats: chats)
        #expect(shelf.counting.chatsRead.count == 6, "the second listing reads no chat at all")
        let scanned = ChatSummaryListing(try await ChatRepository(storage: shelf.store).scan())
        #expect(try await shelf.index.listing() == scanned)
    }

    @Test("the index file is readable by its owner only")
    func ownerOnly() async throws {
        let shelf = try Shelf()
        try await shelf.save(1)
        _ = try await shelf.index.listing()
        let attributes = try FileManager.default.attributesOfItem(atPath: shelf.index.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("listing a data root with no chats creates nothing; its first chat brings the index")
    func emptyRootCreatesNothing() async throws {
        let shelf = try Shelf()
        shelf.expect(try await shelf.index.listing(), chats: [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: shelf.directory.path).isEmpty)

        let chat = try await shelf.save(1)
        shelf.expect(try await shelf.index.listing(), chats: [chat])
        #expect(FileManager.default.fileExists(atPath: shelf.index.path))
    }

    /// A change made to the chats by something other than keep.
    enum BehindTheBack: String, CaseIterable, CustomTestStringConvertible {
        case editedInPlace, replacedByAnotherWriter, added, removed, notJSON, madeADirectory, madeASymlink
        case editedInTheSameTickAsItsWrite

        var testDescription: String { rawValue }
    }

    @Test(
        "a chat edited, added or removed behind keep's back is listed as it now is; a bad one hides no other",
        arguments: BehindTheBack.allCases)
    func changedBehindTheBack(change: BehindTheBack) async throws {
        let shelf = try Shelf()
        var chats = [try await shelf.save(1), try await shelf.save(2), try await shelf.save(3)]
        try shelf.age()
        if change == .editedInTheSameTickAsItsWrite {
            // Written "just now" as the index sees it (a time not yet settled, whatever the
            // machine's load), so a later change may share its time.
            try shelf.setModified(shelf.path(2), Date().addingTimeInterval(3600))
        }
        shelf.expect(try await shelf.index.listing(), chats: chats)

        var unreadable: [String] = []
        switch change {
        case .editedInPlace, .editedInTheSameTickAsItsWrite:
            let before = try shelf.modified(shelf.path(2))
            // Same length, so only the content (and at most the time) tells the versions apart.
            try shelf.overwriteInPlace(
                shelf.path(2), try shelf.text(2).replacingOccurrences(of: "chat 2", with: "chat X"))
            chats[1].title = "chat X"
            if change == .editedInTheSameTickAsItsWrite {
                // Size, time and inode all as they were: only the entry's age gives it away.
                try shelf.setModified(shelf.path(2), before)
            }
        case .replacedByAnotherWriter:
            chats[1].title = "renamed elsewhere"
            try await ChatRepository(storage: try FileStore(root: shelf.directory.path)).save(chats[1])
        case .added:
            chats.append(try await shelf.save(4))
        case .removed:
            try FileManager.default.removeItem(atPath: shelf.path(2))
            chats.remove(at: 1)
        case .notJSON:
            try shelf.overwriteInPlace(shelf.path(2), "{ not json")
            chats.remove(at: 1)
            unreadable = [Shelf.id(2)]
        case .madeADirectory:
            try FileManager.default.removeItem(atPath: shelf.path(2))
            try FileManager.default.createDirectory(atPath: shelf.path(2), withIntermediateDirectories: false)
            chats.remove(at: 1)
            unreadable = [Shelf.id(2)]
        case .madeASymlink:
            let elsewhere = shelf.directory.appending("elsewhere")
            try FileManager.default.moveItem(atPath: shelf.path(2), toPath: elsewhere)
            try FileManager.default.createSymbolicLink(atPath: shelf.path(2), withDestinationPath: elsewhere)
            chats.remove(at: 1)
            unreadable = [Shelf.id(2)]
        }
        shelf.expect(try await shelf.index.listing(), chats: chats, unreadable: unreadable)
        // And again, from the index as the listing left it.
        shelf.expect(try await shelf.index.listing(), chats: chats, unreadable: unreadable)
    }

    /// Harm done to the index file itself.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case deleted, emptied, garbage, anotherSchema, wrongStamps, malformedFacts

        var testDescription: String { rawValue }
    }

    @Test("the index deleted or damaged costs one rebuild and loses nothing", arguments: Damage.allCases)
    func damagedIndex(damage: Damage) async throws {
        let shelf = try Shelf()
        let chats = [try await shelf.save(1, ["paris", "france"]), try await shelf.save(2), try await shelf.save(3)]
        try shelf.age()
        _ = try await shelf.index.search("paris")
        let path = shelf.index.path
        switch damage {
        case .deleted:
            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        case .emptied:
            for suffix in ["", "-wal", "-shm"] { truncate(path + suffix, 0) }
        case .garbage:
            for suffix in ["", "-wal"] {
                try Data(repeating: 0x5a, count: 4096).write(to: URL(fileURLWithPath: path + suffix))
            }
        case .anotherSchema, .wrongStamps, .malformedFacts:
            let database = try SQLiteDatabase(path: path)
            let sql =
                switch damage {
                case .anotherSchema: "UPDATE meta SET value = 99 WHERE name = 'schema'"
                // Every stamp zero: no chat's file matches its entry.
                case .wrongStamps: "UPDATE chats SET facts = zeroblob(56)"
                // Facts too short to be read: damage, like a table missing.
                default: "UPDATE chats SET facts = x'00'"
                }
            try await database.write { transaction throws(SQLiteError) in _ = try transaction.execute(sql) }
        }
        let readBefore = shelf.counting.chatsRead.count
        shelf.expect(try await shelf.index.listing(), chats: chats)
        #expect(shelf.counting.chatsRead.count == readBefore + 3, "the rebuild reads every chat once")
        #expect(try await shelf.index.search("paris").map(\.chatId) == [Shelf.id(1)])
        shelf.expect(try await shelf.index.listing(), chats: chats)
        #expect(shelf.counting.chatsRead.count <= readBefore + 6, "then the index serves again")
        #expect(try await shelf.index.search("paris").map(\.chatId) == [Shelf.id(1)])
    }

    @Test(
        "an index out of reach for now (locked, the disk full, the file refused) is kept; a damaged one is rebuilt",
        arguments: [
            (Int32(5), false), (Int32(6), false), (Int32(13), false), (Int32(8), false), (Int32(11), true),
            (Int32(26), true), (Int32(1), true), (Int32(10), true),
        ])
    func damageOrOutOfReach(resultCode: Int32, isDamage: Bool) {
        let error = SQLiteError(operation: "step", path: "chat-index.sqlite", extendedCode: resultCode, message: "")
        #expect(ChatIndex.isDamage(error) == isDamage, "\(error.code)")
    }

    @Test("a turn written without its index update (a kill between the two) is listed and found as written")
    func killBetweenChatAndIndex() async throws {
        let shelf = try Shelf()
        _ = try await shelf.save(1)
        _ = try await shelf.save(2)
        try shelf.age()
        _ = try await shelf.index.search("anything")
        // The chat's write, and nothing after it: the state a kill right after it leaves.
        let repository = ChatRepository(storage: shelf.store)
        guard let session = try await ChatSession.open(Shelf.id(1), repository: repository) else {
            Issue.record("chat 1 is stored")
            return
        }
        _ = try await session.recordTurn(question: "what about lyon", answer: "lyon is on the rhône", engine: "echo")

        let scanned = ChatSummaryListing(try await repository.scan())
        #expect(try await shelf.index.listing() == scanned)
        #expect(try await shelf.index.search("RHONE").map(\.index) == [3])
        #expect(try await shelf.index.search("rhône") == (try await repository.search("rhône")))
    }

    @Test("a recorded turn updates the index: the next search finds the answer and reads no other chat")
    func turnUpdatesTheIndex() async throws {
        let shelf = try Shelf()
        for number in 1...3 { try await shelf.save(number) }
        try shelf.age()
        _ = try await shelf.index.search("anything")
        let runner = TurnRunner(
            storage: shelf.store, lock: StoreLock(root: shelf.directory.path),
            engine: ScriptedEngine(script: .answer(["the answer is ", "marseille"])), indexRoot: shelf.directory.path)
        let session = try await runner.begin("which port", in: Shelf.id(2))
        _ = try await runner.answer("which port", in: session) { _ in }
        let readBefore = shelf.counting.chatsRead

        let found = try await shelf.index.search("MARSEILLE")
        #expect(found.map(\.chatId) == [Shelf.id(2)])
        #expect(found.map(\.index) == [3])
        // Only the chat the turn just wrote is read again (too recent to trust its stamp).
        #expect(Set(shelf.counting.chatsRead.dropFirst(readBefore.count)).isSubset(of: [Shelf.id(2)]))
        #expect(try await shelf.index.listing() == ChatSummaryListing(try await runner.chats.scan()))
    }

    @Test(
        "a listing of many changed chats indexes their summaries only; the search after it reads each once, in one pass"
    )
    func listingFirstThenOnePass() async throws {
        let shelf = try Shelf()
        for number in 1...6 {
            try await shelf.save(number, number % 3 == 0 ? ["about marseille", "a port"] : ["about lyon", "a city"])
        }
        try shelf.age()
        var limits = ChatIndex.Limits()
        limits.inlineText = 2
        limits.batchChats = 4
        let index = ChatIndex(root: shelf.directory.path, storage: shelf.counting, limits: limits)
        #expect(try await index.listing().chats.count == 6)
        #expect(shelf.counting.chatsRead.count == 6, "the listing read every chat once")
        let expected = try await ChatRepository(storage: shelf.store).search("Marseille")
        #expect(try await index.search("Marseille") == expected)
        // Its pass read every chat once more; then the two that hold the text, to check them.
        #expect(shelf.counting.chatsRead.count == 14, "the first search read every chat once, in one pass")
        #expect(try await index.search("Marseille") == expected)
        #expect(
            Set(shelf.counting.chatsRead.dropFirst(14)) == [Shelf.id(3), Shelf.id(6)],
            "the next search read the two chats that hold the text, and no other")
        #expect(try await index.listing().chats.count == 6)
        #expect(shelf.counting.chatsRead.count == 16, "and a listing after it reads no chat")
    }

    @Test(
        "search through the index finds exactly what reading every chat finds, and reads only the chats that hold it",
        arguments: [
            "paris", "PARIS", "Pâris", "cafe", "CAFÉ", "é", "a", "xy", "say \"hi\"", "second line", "lait\n",
            "nowhere at all", "rhône-alpes", "[x]", "a*b", "b?", "*",
        ])
    func searchMatchesAFullRead(query: String) async throws {
        let shelf = try Shelf()
        try await shelf.save(1, ["tell me about Paris", "Paris is the capital of France"])
        try await shelf.save(2, ["un café au lait", "CAFE AU LAIT\nsecond line"])
        try await shelf.save(3, ["say \"hi\" to Rhône-Alpes", "xyz [x] a*b?"])
        try await shelf.save(4, ["é", "ok"])
        try shelf.age()
        let repository = ChatRepository(storage: shelf.store)
        let expected = try await repository.search(query)
        #expect(try await shelf.index.search(query) == expected)
        let readBefore = shelf.counting.chatsRead.count
        #expect(try await shelf.index.search(query) == expected)
        // Text with words is looked up by its words, and only the chats whose words admit
        // every one of them are read (here, exactly those that hold it); text with no word
        // (punctuation only) asks nothing of the words, and every chat is read.
        let read = Set(shelf.counting.chatsRead.dropFirst(readBefore))
        var folding = TextFolding()
        let hasWords = !WordQuery(folded: folding.folded(query)).runs.isEmpty
        let holders = hasWords ? Set(expected.map(\.chatId)) : Set((1...4).map(Shelf.id))
        #expect(read == holders, "an index in step with the chats reads the chats that hold the text, and no other")
    }

    @Test("search refuses blank text, as reading every chat does", arguments: ["", "   ", "\n"])
    func blankSearch(query: String) async throws {
        let shelf = try Shelf()
        try await shelf.save(1)
        await #expect(throws: ChatError.emptySearch) { try await shelf.index.search(query) }
    }

    @Test("search sees a message changed behind keep's back, and no longer finds the old text")
    func searchSeesChanges() async throws {
        let shelf = try Shelf()
        try await shelf.save(1, ["about lyon", "a city"])
        try await shelf.save(2, ["about nice", "a city"])
        try shelf.age()
        #expect(try await shelf.index.search("lyon").map(\.chatId) == [Shelf.id(1)])

        try shelf.overwriteInPlace(shelf.path(1), try shelf.text(1).replacingOccurrences(of: "lyon", with: "metz"))
        #expect(try await shelf.index.search("lyon").isEmpty)
        #expect(try await shelf.index.search("metz").map(\.chatId) == [Shelf.id(1)])
        try FileManager.default.removeItem(atPath: shelf.path(2))
        #expect(try await shelf.index.search("city").map(\.chatId) == [Shelf.id(1)])
    }
}

@Suite("The chat index's facts blob")
struct ChatIndexFactsTests {
    @Test("facts come back from their blob as they went in, to the bit; a blob of another length is a mismatch")
    func roundTrip() throws {
        let facts = ChatIndexFacts(
            stamp: ValueStamp(size: 1 << 40, modified: 1_750_000_000_123_456_789, inode: .max - 6),
            created: Date(timeIntervalSince1970: 1_750_000_000.123), updated: Date(timeIntervalSince1970: -0.5),
            messages: 4_000, hasText: false, settled: true)
        #expect(facts.blob.count == ChatIndexFacts.byteCount)
        #expect(try ChatIndexFacts(facts.blob) == facts)
        for flags in [(false, false), (true, false), (true, true)] {
            let other = ChatIndexFacts(
                stamp: facts.stamp, created: facts.created, updated: facts.updated, messages: 0, hasText: flags.0,
                settled: flags.1)
            #expect(try ChatIndexFacts(other.blob) == other)
        }
        for length in [0, 55, 57] {
            #expect { _ = try ChatIndexFacts([UInt8](repeating: 1, count: length)) } throws: {
                ($0 as? SQLiteError)?.code == .mismatch
            }
        }
    }
}
