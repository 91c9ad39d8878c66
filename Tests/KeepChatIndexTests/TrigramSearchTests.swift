import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite
import KeepTestSupport
import Synchronization
import Testing

@testable import KeepChatIndex

@Suite("Trigram search: the fold, the postings, the batches")
struct TrigramSearchTests {
    /// Characters whose folding is known to be tricky: expansions (ß, ﬁ), dotted and
    /// dotless i, final sigma, precomposed and combining accents, and text from scripts
    /// with no case at all.
    static let alphabet: [String] = [
        "a", "B", "c", "E", "é", "e\u{301}", "\u{301}", "ß", "ẞ", "ss", "ﬁ", "fi", "ﬀ", "İ", "ı", "i", "I", "Σ", "σ",
        "ς",
        "Å", "å", "Ё", "ё", "й", "и", "æ", "Œ", "日", "本", "語", "🙂", " ", "\n", "-", "*", "?", "[", "x", "Y", "z",
    ]

    @Test("the fold never finds less than the repository's comparison: a match's trigrams are all in the text's")
    func foldIsASuperset() {
        let plan = FuzzPlan(iterations: 3_000, seed: 0x7419)
        var random = plan.generator()
        var folding = TextFolding()
        var checked = 0
        for _ in 0..<plan.iterations {
            guard let (text, query) = Self.textAndQuery(Self.alphabet, using: &random) else { continue }
            var wanted = Trigrams()
            wanted.add(folding.folded(query))
            var held = Trigrams()
            held.add(folding.folded(text))
            #expect(
                wanted.keys.allSatisfy(held.contains),
                "\(plan): \(String(reflecting: query)) in \(String(reflecting: text))")
            checked += 1
        }
        #expect(checked > plan.iterations / 2, "enough queries matched to mean something")
    }

    /// A text of `alphabet`'s characters and a piece of it, written as the text has it or in
    /// another case; `nil` when the piece is blank or the repository's comparison does not
    /// find it in the text (a case change can make it another).
    static func textAndQuery(
        _ alphabet: [String], using random: inout SeededGenerator
    ) -> (text: String, query: String)? {
        let text = (0..<Int.random(in: 3...24, using: &random)).map { _ in
            alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
        }.joined()
        let characters = Array(text)
        let start = Int.random(in: 0..<characters.count, using: &random)
        let end = Int.random(in: start...min(characters.count, start + 8), using: &random)
        var query = String(characters[start..<end])
        if Bool.random(using: &random) { query = query.uppercased() }
        if Bool.random(using: &random) { query = query.lowercased() }
        guard !query.allSatisfy(\.isWhitespace),
            text.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        else { return nil }
        return (text, query)
    }

    @Test("folding lower-cases, strips accents and combining marks, and expands what Foundation expands")
    func foldExamples() {
        var folding = TextFolding()
        func folded(_ text: String) -> String {
            String(String.UnicodeScalarView(folding.folded(text).compactMap(Unicode.Scalar.init)))
        }
        #expect(folded("Café") == "cafe")
        #expect(folded("Cafe\u{301}") == "cafe")
        #expect(folded("STRASSE straße") == "strasse strasse")
        #expect(folded("ﬁle") == "file")
        #expect(folded("日本語") == "日本語")
    }

    @Test("a text many pieces long adds every trigram once, across the pieces' seams, as a naive count does")
    func longTextTrigrams() {
        let plan = FuzzPlan(iterations: 1, seed: 0x3F11)
        var random = plan.generator()
        let scalars = (0..<20_000).map { _ in UInt32.random(in: 0x61...0x7A, using: &random) }
        var keys = Trigrams(capacity: 16)
        keys.add(scalars)
        var naive: [UInt64] = []
        var seen = Set<UInt64>()
        for index in 2..<scalars.count {
            let key = Trigrams.key(scalars[index - 2], scalars[index - 1], scalars[index])
            if seen.insert(key).inserted { naive.append(key) }
        }
        #expect(keys.keys == naive)
        #expect(naive.allSatisfy(keys.contains))
    }

    @Test("a trigram set holds each trigram once, in the order first seen, and empties for the next chat")
    func trigramSet() {
        var keys = Trigrams(capacity: 4)
        keys.add(Array("abcabcabd".unicodeScalars.map(\.value)))
        #expect(keys.count == 4)  // abc, bca, cab, abd
        #expect(keys.keys.first == Trigrams.key(97, 98, 99))
        for value in 0..<10_000 { keys.insert(UInt64(value) * 7_919) }
        #expect(keys.contains(Trigrams.key(97, 98, 100)))
        #expect(keys.contains(9_999 * 7_919))
        keys.removeAll()
        #expect(keys.count == 0 && !keys.contains(Trigrams.key(97, 98, 99)))
        keys.add(Array("xyz".unicodeScalars.map(\.value)))
        #expect(keys.count == 1 && keys.contains(Trigrams.key(120, 121, 122)))
    }

    @Test("chats added out of their numbers' order (a chat indexed before keeps its number) come back in order")
    func postingsInAnyOrder() throws {
        var postings = Postings(capacity: 4)
        // Read in the order a directory listing gives, not by number (and the last one twice).
        for chat: UInt32 in [9, 3, 5, 1] {
            postings.add(77, chat: chat)
            postings.add(78, chat: chat)
        }
        postings.add(77, chat: 1)
        let token = { (key: UInt64) -> UInt64 in Trigrams.mix(key) }
        let buckets = try postings.buckets(token)
        for key: UInt64 in [77, 78] {
            let blob = try #require(buckets.first { $0.bucket == Postings.bucket(token(key)) }?.blob)
            #expect(Postings.chats(holding: token(key), in: blob) == [1, 3, 5, 9])
        }
    }

    @Test("postings come back from their buckets as they went in; a damaged bucket is refused")
    func postingsRoundTrip() throws {
        var random = SeededGenerator(seed: 42)
        var postings = Postings(capacity: 4)
        var expected: [UInt64: [UInt32]] = [:]
        for chat in UInt32(1)...300 {
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let key = UInt64.random(in: 0..<5_000, using: &random)
                postings.add(key, chat: chat)
                if expected[key]?.last != chat { expected[key, default: []].append(chat) }
            }
        }
        let token = { (key: UInt64) -> UInt64 in Trigrams.mix(key) }
        let buckets = try postings.buckets(token)
        #expect(Set(buckets.map(\.bucket)).count == buckets.count, "one blob per bucket")
        for (key, chats) in expected {
            let made = token(key)
            let blob = try #require(buckets.first { $0.bucket == Postings.bucket(made) }?.blob)
            #expect(Postings.chats(holding: made, in: blob) == chats)
        }
        #expect(Postings.chats(holding: token(999_999), in: buckets[0].blob)?.isEmpty == true)
        let damaged = Array(buckets[0].blob.dropLast())
        #expect(Postings.entries(in: damaged) == nil || buckets[0].blob.count <= 9)
    }

    @Test("an index built in many small batches finds what a scan finds, and says how far it got after each")
    func manyBatches() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        for number in 1...23 {
            try await repository.save(
                Self.chat(number, ["question \(number) about lyon", "answer \(number) in zürich"]))
        }
        try Self.age(directory)
        let reports = ProgressLog()
        var limits = ChatIndex.Limits()
        limits.batchChats = 5
        limits.inlineText = 2
        let index = ChatIndex(
            root: directory.path, storage: store, progress: { reports.add($0, $1) }, limits: limits)
        #expect(try await index.search("ZURICH") == (try await repository.search("ZURICH")))
        #expect(try await index.search("answer 17") == (try await repository.search("answer 17")))
        let seen = reports.all
        #expect(seen.map(\.done) == [5, 10, 15, 20, 23] && seen.allSatisfy { $0.total == 23 })
        let database = try SQLiteDatabase(path: index.path)
        let batches = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT count(DISTINCT batch) FROM grams")[0].integer(0)
        }
        #expect(batches == 5)
    }

    @Test("at the bound on batches the newest are merged into one, bucket by bucket, and the search stays exact")
    func batchesMerge() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        let count = ChatIndexSchema.batchBound + 8
        for number in 1...count {
            try await repository.save(Self.chat(number, ["question \(number) word\(number)q", "answer in zürich"]))
        }
        try Self.age(directory)
        var limits = ChatIndex.Limits()
        limits.batchChats = 1
        limits.inlineText = 0
        let index = ChatIndex(root: directory.path, storage: store, limits: limits)
        let database = try SQLiteDatabase(path: index.path)
        #expect(try await index.search("WORD3Q") == (try await repository.search("WORD3Q")))
        let pieces = try await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.pieces(in: transaction)
        }
        // One batch a chat would be 40 of them: fewer than the bound means they were merged.
        #expect(pieces.batches < ChatIndexSchema.batchBound, "merged: \(pieces.batches) batches")
        #expect(pieces.batches >= 1)
        for number in [1, 2, ChatIndexSchema.batchBound, count] {
            #expect(try await index.search("word\(number)q") == (try await repository.search("word\(number)q")))
        }
        #expect(try await index.search("ZURICH").count == count)
    }

    @Test("many turns fold their deltas into a batch, and the search stays exact")
    func deltasFold() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        var chat = Self.chat(1, ["first question", "first answer"])
        try await repository.save(chat)
        let index = ChatIndex(root: directory.path, storage: store)
        _ = try await index.search("first")
        for turn in 0..<(ChatIndexSchema.deltaBound + 10) {
            let before = await index.stamp(of: chat.id)
            chat.messages += [
                ChatMessage(role: .user, text: "question \(turn) word\(turn)x", time: chat.updated),
                ChatMessage(role: .assistant, text: "answer \(turn)", time: chat.updated),
            ]
            try await repository.save(chat)
            await index.recorded(chat, before: before)
        }
        let database = try SQLiteDatabase(path: index.path)
        let deltas = try await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.pieces(in: transaction)
        }
        #expect(deltas.deltas < ChatIndexSchema.deltaBound, "folded into a batch")
        #expect(try await index.search("WORD7X") == (try await repository.search("WORD7X")))
        #expect(try await index.search("word519x") == (try await repository.search("word519x")))
    }

    @Test("a chat removed and another added never takes its number: its old postings name no one")
    func numbersAreNeverGivenTwice() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        try await repository.save(Self.chat(1, ["about marseille", "a port"]))
        try Self.age(directory)
        let index = ChatIndex(root: directory.path, storage: store)
        #expect(try await index.search("marseille").map(\.chatId) == [Self.id(1)])
        _ = try await repository.delete(Self.id(1))
        try await repository.save(Self.chat(2, ["about nice", "a city"]))
        try Self.age(directory)
        #expect(try await index.search("marseille").isEmpty)
        #expect(try await index.search("nice").map(\.chatId) == [Self.id(2)])
        let database = try SQLiteDatabase(path: index.path)
        let numbers = try await database.read { transaction throws(SQLiteError) in
            var numbers: [Int64] = []
            for row in try transaction.query("SELECT num FROM chats") { numbers.append(try row.integer(0)) }
            return numbers
        }
        #expect(numbers == [2])
    }

    // MARK: - Support

    static func id(_ number: Int) -> String { "20250601-000000-\(String(format: "%06x", number))" }

    static func chat(_ number: Int, _ texts: [String]) -> Chat {
        let time = Date(timeIntervalSince1970: 1_750_000_000 + Double(number) * 60)
        return Chat(
            id: id(number), title: "chat \(number)",
            messages: texts.enumerated().map {
                ChatMessage(role: $0.offset % 2 == 0 ? .user : .assistant, text: $0.element, time: time)
            }, created: time, updated: time)
    }

    /// Every chat file dated an hour back, so the index trusts its stamp.
    static func age(_ directory: TemporaryDirectory) throws {
        let chats = directory.appending("store/chats")
        var times = [timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)]
        for name in try FileManager.default.contentsOfDirectory(atPath: chats) {
            #expect(utimensat(AT_FDCWD, chats + "/" + name, &times, 0) == 0)
        }
    }
}

/// The progress an index reported, in order.
private final class ProgressLog: Sendable {
    private let reports = Mutex<[(done: Int, total: Int)]>([])
    func add(_ done: Int, _ total: Int) { reports.withLock { $0.append((done, total)) } }
    var all: [(done: Int, total: Int)] { reports.withLock { $0 } }
}
