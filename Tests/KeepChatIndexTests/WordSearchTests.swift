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

@Suite("Word search: the fold, the words, the postings, the batches")
struct WordSearchTests {
    /// Characters whose folding is known to be tricky: expansions (ß, ﬁ), dotted and
    /// dotless i, final sigma, precomposed and combining accents, and text from scripts
    /// with no case at all; digits (ASCII and others), and punctuation that ends a word.
    static let alphabet: [String] = [
        "a", "B", "c", "E", "é", "e\u{301}", "\u{301}", "ß", "ẞ", "ss", "ﬁ", "fi", "ﬀ", "İ", "ı", "i", "I", "Σ", "σ",
        "ς",
        "Å", "å", "Ё", "ё", "й", "и", "æ", "Œ", "日", "本", "語", "🙂", " ", "\n", "-", "*", "?", "[", "x", "Y", "z",
        "0", "7", "٣", "½", ".", ",", "'", "’", "_",
    ]

    @Test(
        "the fold never finds less than the repository's comparison: every word run of a match is admitted by a word of the text"
    )
    func foldIsASuperset() {
        let plan = FuzzPlan(iterations: 3_000, seed: 0x7419)
        var random = plan.generator()
        var folding = TextFolding()
        var checked = 0
        for _ in 0..<plan.iterations {
            guard let (text, query) = Self.textAndQuery(Self.alphabet, using: &random) else { continue }
            let wanted = WordQuery(folded: folding.folded(query))
            var held = Words()
            held.add(folding.folded(text))
            #expect(
                wanted.runs.allSatisfy { !WordQuery.numbers(admittedBy: $0, in: held).isEmpty },
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

    @Test(
        "a long text adds every word once, in the order first seen, as a naive split does, the table grown many times")
    func longTextWords() {
        let plan = FuzzPlan(iterations: 1, seed: 0x3F11)
        var random = plan.generator()
        let pool: [UInt32] = Array(0x61...0x66) + [0x20, 0x2E, 0x31, 0xE9, 0x65E5, 0x1F642]
        let scalars = (0..<60_000).map { _ in pool[Int.random(in: 0..<pool.count, using: &random)] }
        var words = Words(capacity: 4)
        words.add(scalars)
        var naive: [String] = []
        var seen = Set<String>()
        var current = String.UnicodeScalarView()
        for value in scalars + [0x20] {
            if Words.isWordScalar(value) {
                current.append(Unicode.Scalar(value)!)
                continue
            }
            if !current.isEmpty, seen.insert(String(current)).inserted { naive.append(String(current)) }
            current = String.UnicodeScalarView()
        }
        let held = (0..<words.count).map { String(decoding: words.word($0), as: UTF8.self) }
        #expect(held == naive)
        #expect(naive.count > 1_000, "enough words to grow the table")
        for (number, word) in naive.enumerated() {
            let bytes = Array(word.utf8)[...]
            #expect(words.number(of: bytes, hash: Words.hash(bytes)) == number)
        }
    }

    @Test("a message's words gathered from its UTF-8 are the words of its folded text, whatever its characters")
    func wordsFromTextAreTheFoldedWords() {
        let plan = FuzzPlan(iterations: 3_000, seed: 0x51D7)
        var random = plan.generator()
        var folding = TextFolding()
        // Long runs too, past the eight bytes a short word packs into, with and without accents.
        let pieces = Self.alphabet + ["abcdefgh", "ABCDEFGHI", "Ünïcödé", "日本語のテキスト", "12345678901"]
        for _ in 0..<plan.iterations {
            let text = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }.joined()
            var direct = Words(capacity: 4)
            direct.add(text, folding: &folding)
            var reference = Words(capacity: 4)
            reference.add(folding.folded(text))
            let held = (0..<direct.count).map { Array(direct.word($0)) }
            #expect(
                held == (0..<reference.count).map { Array(reference.word($0)) }, "\(plan): \(String(reflecting: text))")
            for word in held {
                #expect(direct.number(of: word[...], hash: Words.hash(word[...])) != nil, "\(plan): found again")
            }
        }
    }

    @Test(
        "every word of a message is handed over in order, repeats and all, with its own hash and key, whatever its bytes and wherever a run of eight ASCII bytes starts"
    )
    func everyWordIsHandedOverWithItsHashAndKey() {
        let plan = FuzzPlan(iterations: 4_000, seed: 0x8A5C)
        var random = plan.generator()
        var folding = TextFolding()
        // Every ASCII byte (the bounds of the letters and digits, control bytes, DEL), runs
        // around eight bytes long, and scalars beyond ASCII between them.
        let ascii = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        let pieces = ascii + ["Abcdefg", "abcdefgh", "ABCDEFGHI", "0123456", "é", "Å", "ß", "日本", "ﬁ", "🙂"]
        for _ in 0..<plan.iterations {
            let text = (0..<Int.random(in: 0...60, using: &random)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }.joined()
            var handed: [(word: [UInt8], hash: UInt64, key: UInt64)] = []
            let read = Words.forEachWord(of: text, folding: &folding) { word, hash, key in
                handed.append((Array(word), hash, key))
            }
            #expect(read, "\(plan): \(String(reflecting: text))")
            // The reference: the folded text's scalars, split where a scalar is not a word's.
            var expected: [[UInt8]] = []
            var current: [UInt8] = []
            for value in folding.folded(text) + [0x20] {
                if Words.isWordScalar(value) {
                    Words.appendUTF8(value, to: &current)
                } else if !current.isEmpty {
                    expected.append(current)
                    current = []
                }
            }
            #expect(handed.map(\.word) == expected, "\(plan): \(String(reflecting: text))")
            for (word, hash, key) in handed {
                word.withUnsafeBufferPointer { word in
                    #expect(hash == Words.hash(word) && key == Words.key(word), "\(plan): \(String(reflecting: text))")
                }
            }
        }
    }

    @Test(
        "a chat's words looked up in the vocabulary as they are read are its word set looked up word by word, chat after chat"
    )
    func chatWordsAgainstTheirSet() {
        let plan = FuzzPlan(iterations: 400, seed: 0x6C2B)
        var random = plan.generator()
        var folding = TextFolding()
        let pieces = Self.alphabet + ["abcdefgh", "ABCDEFGHI", "Ünïcödé", "日本語のテキスト", "12345678901", "word", "Word"]
        func text() -> String {
            (0..<Int.random(in: 0...30, using: &random)).map { _ in
                pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }.joined()
        }
        // The vocabulary: the words of some texts like the chats', so chats hold known and new words.
        var vocabulary = Words(capacity: 4)
        for _ in 0..<40 { vocabulary.add(text(), folding: &folding) }
        var gathering = ChatWords(numberedBy: vocabulary)
        for _ in 0..<plan.iterations {
            let messages = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                ChatMessage(role: .user, text: text(), time: Date(timeIntervalSince1970: 0))
            }
            var set = Words(capacity: 4)
            for message in messages { set.add(message.text, folding: &folding) }
            var known: [UInt32] = []
            var unknown: [[UInt8]] = []
            for number in 0..<set.count {
                let word = set.word(number)
                if let held = vocabulary.number(of: word, hash: set.hashes[number]) {
                    known.append(UInt32(held))
                } else {
                    unknown.append(Array(word))
                }
            }
            let gathered = gathering.words(of: messages)
            #expect(gathered.known == known, "\(plan): \(messages.map(\.text))")
            #expect((0..<gathered.unknown.count).map { Array(gathered.unknown.word($0)) } == unknown, "\(plan)")
            for place in 0..<gathered.unknown.count {
                #expect(gathered.unknown.hashes[place] == Words.hash(gathered.unknown.word(place)), "\(plan)")
            }
        }
    }

    @Test(
        "a word set holds each word once, in the order first seen, ends words at what is not a letter or digit, and empties for the next chat"
    )
    func wordSet() {
        var folding = TextFolding()
        var words = Words(capacity: 4)
        words.add(folding.folded("Abc abc, ABD-abc 42x.Été_ﬁn"))
        let held = (0..<words.count).map { String(decoding: words.word($0), as: UTF8.self) }
        #expect(held == ["abc", "abd", "42x", "ete", "fin"])
        words.removeAll()
        #expect(
            words.count == 0
                && words.number(of: Array("abc".utf8)[...], hash: Words.hash(Array("abc".utf8)[...])) == nil)
        words.add(folding.folded("xyz"))
        #expect(
            words.count == 1 && words.number(of: Array("xyz".utf8)[...], hash: Words.hash(Array("xyz".utf8)[...])) == 0)
        #expect(Words.isWordScalar(0x661) && Words.isWordScalar(0x65E5) && !Words.isWordScalar(0x2019))
    }

    @Test(
        "a query's word runs know their bounds within the query: a run at the query's edge may be part of a longer word"
    )
    func queryRuns() {
        var folding = TextFolding()
        func runs(_ text: String) -> [String] {
            WordQuery(folded: folding.folded(text)).runs.map {
                ($0.boundedLeft ? "|" : "") + String(decoding: $0.bytes, as: UTF8.self) + ($0.boundedRight ? "|" : "")
            }
        }
        #expect(runs("shop") == ["shop"])
        #expect(runs(" shop ") == ["|shop|"])
        #expect(runs("Work-Shop opened") == ["work|", "|shop|", "|opened"])
        #expect(runs("9:30") == ["9|", "|30"])
        #expect(runs("--") == [])
        #expect(runs("\u{301}") == [])
        #expect(runs("a a a") == ["a|", "|a|", "|a"])
        let word = Array("workshop".utf8)[...]
        func admits(_ run: String, left: Bool, right: Bool) -> Bool {
            WordQuery.admits(word, WordQuery.Run(bytes: Array(run.utf8), boundedLeft: left, boundedRight: right))
        }
        #expect(admits("workshop", left: true, right: true) && !admits("shop", left: true, right: true))
        #expect(admits("work", left: true, right: false) && !admits("shop", left: true, right: false))
        #expect(admits("shop", left: false, right: true) && !admits("work", left: false, right: true))
        #expect(admits("ksho", left: false, right: false) && !admits("shops", left: false, right: false))
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
        let buckets = postings.buckets()
        for word: UInt64 in [77, 78] {
            let blob = try #require(buckets.first { $0.bucket == Postings.bucket(word) }?.blob)
            #expect(Postings.chats(holding: word, in: blob) == [1, 3, 5, 9])
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
        let buckets = postings.buckets()
        #expect(Set(buckets.map(\.bucket)).count == buckets.count, "one blob per bucket")
        for (word, chats) in expected {
            let blob = try #require(buckets.first { $0.bucket == Postings.bucket(word) }?.blob)
            #expect(Postings.chats(holding: word, in: blob) == chats)
        }
        #expect(Postings.chats(holding: 999_999, in: buckets[0].blob)?.isEmpty == true)
        // Renumbered as it is written (a word another process numbered first): found under its new number.
        let moved = postings.buckets { $0 + 1_000_000 }
        for (word, chats) in expected.prefix(20) {
            let blob = try #require(moved.first { $0.bucket == Postings.bucket(word + 1_000_000) }?.blob)
            #expect(Postings.chats(holding: word + 1_000_000, in: blob) == chats)
        }
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

    /// A query and the chats it is found in, among ``boundaryChats``, with the rule it shows.
    struct BoundaryCase: CustomTestStringConvertible, Sendable {
        let query: String
        let found: [Int]
        let rule: String
        var testDescription: String { "\(rule): \(String(reflecting: query))" }
    }

    static let boundaryChats = [
        "the workshop opened at 9:30, in Zürich", "a shop of words", "ids: abc123def and 42",
        "café-crème, s'il vous plaît",
    ]

    static let boundaryCases = [
        BoundaryCase(query: "shop", found: [1, 2], rule: "a one-word query is found inside a longer word"),
        BoundaryCase(query: "orksho", found: [1], rule: "a query starting and ending mid-word"),
        BoundaryCase(query: "kshop opened", found: [1], rule: "a query starting mid-word, then a whole word's start"),
        BoundaryCase(query: "shop o", found: [1, 2], rule: "a query ending mid-word"),
        BoundaryCase(query: " of ", found: [2], rule: "a word bounded on both sides is a whole word"),
        BoundaryCase(query: "9:30", found: [1], rule: "digits, punctuation between them"),
        BoundaryCase(query: "123", found: [3], rule: "digits inside a word of letters and digits"),
        BoundaryCase(query: "C123D", found: [3], rule: "letters and digits, mid-word, in another case"),
        BoundaryCase(query: "42", found: [3], rule: "a number alone"),
        BoundaryCase(query: "ZURICH", found: [1], rule: "accents and case ignored"),
        BoundaryCase(query: "cafe-CREME", found: [4], rule: "punctuation between words, accents ignored"),
        BoundaryCase(query: "s'il vous", found: [4], rule: "an apostrophe ends a word"),
        BoundaryCase(query: "shops", found: [], rule: "a word longer than any held is found nowhere"),
        BoundaryCase(query: "work shop", found: [], rule: "two words are not one"),
        BoundaryCase(query: ", ", found: [1, 4], rule: "a query with no word reads every chat"),
    ]

    @Test(
        "a search finds what a scan finds, and reads only the chats whose words admit every word of the query",
        arguments: boundaryCases)
    func boundaries(_ rule: BoundaryCase) async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let counting = ReadCountingStorage(store)
        let repository = ChatRepository(storage: store)
        for (offset, text) in Self.boundaryChats.enumerated() {
            try await repository.save(Self.chat(offset + 1, [text, "ok"]))
        }
        try Self.age(directory)
        let index = ChatIndex(root: directory.path, storage: counting)
        let expected = try await repository.search(rule.query)
        #expect(try await index.search(rule.query) == expected)
        #expect(Set(expected.map(\.chatId)) == Set(rule.found.map(Self.id)))
        let before = counting.chatsRead.count
        #expect(try await index.search(rule.query) == expected)
        var folding = TextFolding()
        let hasWords = !WordQuery(folded: folding.folded(rule.query)).runs.isEmpty
        let read = Set(counting.chatsRead.dropFirst(before))
        #expect(read == (hasWords ? Set(rule.found.map(Self.id)) : Set((1...4).map(Self.id))))
    }

    @Test("the index never leaves out a chat that matches: random chats and queries, searched as a scan searches them")
    func neverLeavesOutAMatch() async throws {
        let plan = FuzzPlan(iterations: 300, seed: 0x30D5)
        var random = plan.generator()
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        func text() -> String {
            (0..<Int.random(in: 1...30, using: &random)).map { _ in
                Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &random)]
            }.joined()
        }
        var chats: [Chat] = []
        for number in 1...24 {
            let chat = Self.chat(number, (0..<Int.random(in: 1...4, using: &random)).map { _ in text() })
            try await repository.save(chat)
            chats.append(chat)
        }
        try Self.age(directory)
        var limits = ChatIndex.Limits()
        limits.batchChats = 5
        limits.inlineText = 3
        let index = ChatIndex(root: directory.path, storage: store, limits: limits)
        var compared = 0
        for iteration in 0..<plan.iterations {
            if iteration == plan.iterations / 2 {
                // Half-way, turns: words first seen in them, indexed as deltas.
                for number in [3, 9, 17] {
                    var chat = chats[number - 1]
                    let before = await index.stamp(of: chat.id)
                    chat.messages += [
                        ChatMessage(role: .user, text: text(), time: chat.updated),
                        ChatMessage(role: .assistant, text: text(), time: chat.updated),
                    ]
                    try await repository.save(chat)
                    await index.recorded(chat, before: before)
                    chats[number - 1] = chat
                }
            }
            // A piece of some message, cut anywhere (mid-word too), in any case; or any text.
            var query: String
            if Int.random(in: 0..<4, using: &random) == 0 {
                query = text()
            } else {
                let chat = chats[Int.random(in: 0..<chats.count, using: &random)]
                let characters = Array(chat.messages[Int.random(in: 0..<chat.messages.count, using: &random)].text)
                let start = Int.random(in: 0..<characters.count, using: &random)
                let end = Int.random(in: (start + 1)...min(characters.count, start + 10), using: &random)
                query = String(characters[start..<end])
            }
            if Bool.random(using: &random) { query = query.uppercased() }
            guard !query.allSatisfy(\.isWhitespace) else { continue }
            let expected = try await repository.search(query)
            #expect(try await index.search(query) == expected, "\(plan): \(String(reflecting: query))")
            compared += 1
        }
        #expect(compared > plan.iterations / 2)
    }

    @Test("a word first seen in a turn takes its number as the turn is indexed, and the next search finds it")
    func wordFirstSeenInATurn() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let counting = ReadCountingStorage(store)
        let repository = ChatRepository(storage: store)
        var chat = Self.chat(1, ["about lyon", "a city"])
        try await repository.save(chat)
        try await repository.save(Self.chat(2, ["about nice", "a city"]))
        try Self.age(directory)
        let index = ChatIndex(root: directory.path, storage: counting)
        #expect(try await index.search("quokkaville").isEmpty)
        let database = try SQLiteDatabase(path: index.path)
        let countBefore = try await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.wordCount(in: transaction)
        }
        let before = await index.stamp(of: chat.id)
        chat.messages += [
            ChatMessage(role: .user, text: "and Quokkaville?", time: chat.updated),
            ChatMessage(role: .assistant, text: "a town of 1200", time: chat.updated),
        ]
        try await repository.save(chat)
        await index.recorded(chat, before: before)
        let vocabulary = try await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.vocabulary(sealing: PlainChatIndexing(), in: transaction)
        }
        let word = Array("quokkaville".utf8)[...]
        #expect(vocabulary.number(of: word, hash: Words.hash(word)) != nil, "numbered in the turn's own transaction")
        #expect(
            vocabulary.count == countBefore + 5, "and, quokkaville, town, of, 1200: the words new to the vocabulary")
        let readBefore = counting.chatsRead.count
        let found = try await index.search("QUOKKA")
        #expect(found == (try await repository.search("QUOKKA")))
        #expect(found.map(\.index) == [2])
        #expect(Set(counting.chatsRead.dropFirst(readBefore)) == [Self.id(1)])
    }

    /// Chats in `anotherWriterNumbersWords…`: more than one chunk of reads (128), so the
    /// second chunk is read after the first is batched.
    private static let lateWriterChats = 140

    /// ``lateWriterChats`` chats and one more, listed by another index (so every chat is
    /// indexed but none of its words), and a store that, at the second chunk's first read,
    /// saves `late` and has that other index number its words, as another process would.
    private static func historyWithLateWriter(
        in directory: TemporaryDirectory, late: Chat
    ) async throws -> (repository: ChatRepository, interrupting: InterruptingStorage) {
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        for number in 1...lateWriterChats {
            try await repository.save(chat(number, ["question \(number) word\(number)w", "shared answer"]))
        }
        try await repository.save(chat(1000, ["seed", "text"]))
        try age(directory)
        let other = ChatIndex(root: directory.path, storage: store)
        _ = try await other.listing()
        let interrupting = InterruptingStorage(store, atRead: 129) {
            try? await repository.save(late)
            await other.recorded(late, before: nil)
        }
        return (repository, interrupting)
    }

    @Test(
        "words another process numbered while a pass filled its batch keep their numbers, and the pass's take the next")
    func anotherWriterNumbersWordsMidPass() async throws {
        let directory = try TemporaryDirectory()
        // The first chunk is 128 chats: the 129th read is the second chunk's first.
        let (repository, interrupting) = try await Self.historyWithLateWriter(
            in: directory, late: Self.chat(2000, ["word3w and word139w", "brandnewword shared"]))
        var limits = ChatIndex.Limits()
        limits.batchChats = 10_000
        limits.inlineText = 0
        let index = ChatIndex(root: directory.path, storage: interrupting, limits: limits)
        #expect(try await index.search("word7w") == (try await repository.search("word7w")))
        #expect(interrupting.fired)
        for query in ["word3w", "word139w", "brandnewword", "shared", "word140w", "question 77"] {
            #expect(try await index.search(query) == (try await repository.search(query)), "\(query)")
        }
        let database = try SQLiteDatabase(path: index.path)
        let vocabulary = try await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.vocabulary(sealing: PlainChatIndexing(), in: transaction)
        }
        // Each word once (a word stored twice would be damage, and rebuild the index).
        let words = Set((0..<vocabulary.count).map { Array(vocabulary.word($0)) })
        #expect(words.count == vocabulary.count)
        func number(_ word: String) -> Int? {
            let bytes = Array(word.utf8)[...]
            return vocabulary.number(of: bytes, hash: Words.hash(bytes))
        }
        // The other process's words were stored first, under the numbers it gave them.
        let theirs = [number("brandnewword"), number("word3w"), number("shared")].compactMap { $0 }
        let ours = [number("word140w"), number("question")].compactMap { $0 }
        #expect(theirs.count == 3 && theirs.allSatisfy { $0 < 5 })
        #expect(ours.count == 2 && ours.allSatisfy { $0 >= 5 })
    }

    @Test("words another process numbers between a pass's batches leave every later batch's words found")
    func anotherWriterNumbersWordsBetweenBatches() async throws {
        let directory = try TemporaryDirectory()
        // Batches of 16 chats, written as the pass goes; the other process numbers words (some
        // the pass has met, some it has yet to meet, one it never meets) as the second chunk
        // is read, whichever batch is being written then.
        let (repository, interrupting) = try await Self.historyWithLateWriter(
            in: directory, late: Self.chat(2000, ["word135w and word2w", "brandnewword shared"]))
        let count = Self.lateWriterChats
        var limits = ChatIndex.Limits()
        limits.batchChats = 16
        limits.inlineText = 0
        let index = ChatIndex(root: directory.path, storage: interrupting, limits: limits)
        #expect(try await index.search("word7w") == (try await repository.search("word7w")))
        #expect(interrupting.fired)
        for number in stride(from: 1, through: count, by: 3) + [2, 135, 140] {
            let query = "word\(number)w"
            #expect(try await index.search(query) == (try await repository.search(query)), "\(query)")
        }
        for query in ["brandnewword", "shared", "question 77", "seed"] {
            #expect(try await index.search(query) == (try await repository.search(query)), "\(query)")
        }
        let database = try SQLiteDatabase(path: index.path)
        let vocabulary = try await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.vocabulary(sealing: PlainChatIndexing(), in: transaction)
        }
        #expect(Set((0..<vocabulary.count).map { Array(vocabulary.word($0)) }).count == vocabulary.count)
    }

    @Test("an index of the older (trigram) schema is rebuilt once, then serves words")
    func olderSchemaIsRebuilt() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let counting = ReadCountingStorage(store)
        let repository = ChatRepository(storage: store)
        try await repository.save(Self.chat(1, ["about lyon", "a city"]))
        try await repository.save(Self.chat(2, ["about nice", "a city"]))
        try Self.age(directory)
        let path = directory.appending(ChatIndex.fileName)
        // The tables schema 3 made, with a row of trigram postings and a delta of tokens.
        let old = try SQLiteDatabase(path: path)
        try await old.write { transaction throws(SQLiteError) in
            for sql in [
                "CREATE TABLE meta(name TEXT PRIMARY KEY, value NOT NULL)",
                "CREATE TABLE chats(num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title BLOB NOT NULL, engine TEXT, facts BLOB NOT NULL)",
                "CREATE TABLE grams(bucket INTEGER NOT NULL, batch INTEGER NOT NULL, postings BLOB NOT NULL, PRIMARY KEY(bucket, batch)) WITHOUT ROWID",
                "CREATE TABLE deltas(seq INTEGER PRIMARY KEY, chat INTEGER NOT NULL, tokens BLOB NOT NULL)",
                "INSERT INTO meta(name, value) VALUES('schema', 3), ('key', CAST('plain' AS BLOB)), ('numbers', 7)",
                "INSERT INTO grams(bucket, batch, postings) VALUES(5, 1, x'0102030405060708')",
                "INSERT INTO deltas(seq, chat, tokens) VALUES(1, 1, x'0102030405060708')",
            ] {
                _ = try transaction.execute(sql)
            }
        }
        let index = ChatIndex(root: directory.path, storage: counting)
        #expect(try await index.search("LYON") == (try await repository.search("LYON")))
        #expect(counting.chatsRead.count == 3, "every chat read once to rebuild, then the one that holds the word")
        let state = try await old.read { transaction throws(SQLiteError) in
            (try ChatIndexSchema.version(in: transaction), try ChatIndexSchema.wordCount(in: transaction))
        }
        #expect(state.0 == ChatIndexSchema.version && state.1 > 0)
        #expect(try await index.search("nice").map(\.chatId) == [Self.id(2)])
        #expect(counting.chatsRead.count == 4, "and then it serves: one read, the chat that holds the word")
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

/// A store that runs `action` once, as the `read`th chat is read through it (counting from
/// 1): a change by another process at a chosen moment of a pass.
private final class InterruptingStorage: StampedStorage {
    private let inner: any StampedStorage
    private let read: Int
    private let action: @Sendable () async -> Void
    private let reads = Mutex(0)

    init(_ inner: any StampedStorage, atRead read: Int, _ action: @escaping @Sendable () async -> Void) {
        self.inner = inner
        self.read = read
        self.action = action
    }

    /// Whether `action` ran.
    var fired: Bool { reads.withLock { $0 } >= read }

    func read(_ key: StorageKey) async throws(StorageError) -> String? {
        if key.namespace == .chats,
            reads.withLock({ reads in
                reads += 1
                return reads == read
            })
        {
            await action()
        }
        return try await inner.read(key)
    }

    func write(_ key: StorageKey, _ value: String) async throws(StorageError) { try await inner.write(key, value) }
    func remove(_ key: StorageKey) async throws(StorageError) { try await inner.remove(key) }
    func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] { try await inner.listIds(namespace) }
    func clear(_ namespace: Namespace) async throws(StorageError) { try await inner.clear(namespace) }
    func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        try await inner.stamps(namespace)
    }
    func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? { try await inner.stamp(key) }
}
