import Foundation
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite

/// The tables of the ``ChatIndex`` and every statement on them, in one place.
///
/// - `meta`: the schema version, and the check of the key the index was made under
///   (``ChatIndexSealing/keyCheck``): an index of another schema or another key is emptied
///   and made again.
/// - `chats`: one row per indexed chat: a number of its own (what the postings name), its
///   id, its title (sealed when the chats are), its engine, and its ``ChatIndexFacts`` in one
///   blob: its file's stamp, the rest of its summary, and whether its words are indexed.
/// - `words`: the vocabulary, every distinct word (``Words``) of the chats indexed, each
///   with a number of its own (its place), in pieces of consecutive numbers, one row each
///   keyed by its first number and sealed when the chats are; `meta`'s `words` counts them.
///   A piece is added for the words a batch or a turn brings, and the newest pieces are
///   merged once there are many.
/// - `grams`: the postings of the chats indexed a batch at a time (``Postings``): one row per
///   bucket of word numbers per batch, sealed when the chats are. Rows lie in the order they
///   were written (a batch's side by side, at the end), found by bucket through the key's
///   index: writing a batch touches the pages it adds, not a page of every batch before it.
/// - `batches`: each batch of `grams`, with the bytes its postings take.
/// - `deltas`: the word numbers of text indexed a little at a time (a turn's question and
///   answer, a chat changed behind keep's back), one row each, sealed when the chats are;
///   folded into a batch of `grams` once there are many.
///
/// No message text is kept, only its words, each once, apart from which chats hold it: a
/// search finds the chats that hold, for every word of what it looks for, a word that may
/// hold it (``WordQuery``), then reads those chats. A posting may outlive the text it came
/// from (a chat edited or removed), and a word the chat that brought it (they stay until the
/// index is rebuilt); either costs at most that search one read, never a wrong answer.
enum ChatIndexSchema {
    /// One row of `chats`: the summary of a chat as indexed, its number, the stamp of the
    /// file it was read from, and whether its words are indexed and it was settled.
    struct Entry: Sendable {
        let number: UInt32
        let summary: ChatSummary
        let stamp: ValueStamp
        let hasText: Bool
        let settled: Bool
    }

    /// The index held against the chat files' stamps: what it can answer, what must be
    /// read again, and what it holds of files that are gone.
    struct Comparison: Sendable {
        /// The entries that are trusted: the file's stamp is the one indexed, it was settled
        /// when indexed, and its words are indexed when the text is wanted.
        var trusted: [Entry] = []
        /// The chats to read again (changed, new, not settled, without the text wanted, or
        /// no longer a regular file), with the entry the index holds for them, if any.
        var stale: [(id: String, stamp: ValueStamp, entry: Entry?)] = []
        /// Indexed chats whose file is gone.
        var gone: [String] = []
    }

    /// The schema version this build writes; an index of any other is made again.
    static let version: Int64 = 4

    /// The schema version the file holds; throws when it holds none.
    static func version(in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> Int64? {
        try transaction.query("SELECT value FROM meta WHERE name = 'schema'").first?.integer(0)
    }

    /// Whether the file holds this build's schema, made under the key `keyCheck` names.
    static func isCurrent(keyCheck: [UInt8], in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> Bool {
        guard try version(in: transaction) == version else { return false }
        let held = try transaction.query("SELECT value FROM meta WHERE name = 'key'").first
        return try held?.blob(0) == keyCheck
    }

    /// Creates the tables, or empties and recreates them when the file holds another
    /// schema version or was made under another key.
    static func prepare(keyCheck: [UInt8], in transaction: borrowing SQLiteTransaction) throws(SQLiteError) {
        _ = try transaction.execute("CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value NOT NULL)")
        if try isCurrent(keyCheck: keyCheck, in: transaction) { return }
        // Every table any schema so far has made.
        for table in ["message_text", "messages", "deltas", "grams", "batches", "words", "chats"] {
            _ = try transaction.execute("DROP TABLE IF EXISTS \(table)")
        }
        _ = try transaction.execute(
            """
            CREATE TABLE chats(num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title BLOB NOT NULL, engine TEXT,
              facts BLOB NOT NULL)
            """)
        _ = try transaction.execute(
            """
            CREATE TABLE grams(bucket INTEGER NOT NULL, batch INTEGER NOT NULL, postings BLOB NOT NULL,
              PRIMARY KEY(bucket, batch))
            """)
        _ = try transaction.execute("CREATE TABLE batches(batch INTEGER PRIMARY KEY, size INTEGER NOT NULL)")
        _ = try transaction.execute(
            "CREATE TABLE deltas(seq INTEGER PRIMARY KEY, chat INTEGER NOT NULL, words BLOB NOT NULL)")
        _ = try transaction.execute("CREATE TABLE words(first INTEGER PRIMARY KEY, words BLOB NOT NULL)")
        _ = try transaction.execute("DELETE FROM meta WHERE name IN ('numbers', 'words')")
        _ = try transaction.execute(
            "INSERT OR REPLACE INTO meta(name, value) VALUES('schema', ?), ('key', ?)",
            [.integer(version), .blob(keyCheck)])
    }

    // MARK: - Chats

    /// Every row of `chats`, the most recently indexed first: a chat is indexed again when
    /// it changes, so this is close to the order a listing shows, and sorting it costs
    /// little. Each column is read in place and checked; titles are opened with `sealing`.
    static func entries(
        sealing: any ChatIndexSealing, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) -> [Entry] {
        var entries: [Entry] = []
        // Counting costs SQLite a walk of the table's pages, and saves the array's regrowth.
        entries.reserveCapacity(Int(try transaction.query("SELECT count(*) FROM chats").first?.integer(0) ?? 0))
        try transaction.forEachRow(
            "SELECT num, id, title, engine, facts FROM chats ORDER BY rowid DESC"
        ) { row throws(SQLiteError) in
            let facts = try row.withBlob(4) { blob throws(SQLiteError) in try ChatIndexFacts(blob) }
            let id = try row.text(1)
            let title = try Self.title(try row.blob(2), of: id, sealing: sealing)
            let summary = ChatSummary(
                id: id, title: title, created: facts.created, updated: facts.updated, messageCount: facts.messages,
                engine: try row.optionalText(3))
            entries.append(
                Entry(
                    number: try number(row.integer(0)), summary: summary, stamp: facts.stamp, hasText: facts.hasText,
                    settled: facts.settled))
        }
        return entries
    }

    /// `entries` held against `stamps` (each chat file's stamp, by id): only an entry whose
    /// file still has the stamp it was indexed from is trusted, and only when it was settled
    /// when indexed (a file changed in the same tick of the clock as its read could
    /// otherwise keep its size, time and inode) and its words are indexed when `withText`.
    static func compare(_ entries: [Entry], with stamps: [String: ValueStamp], withText: Bool) -> Comparison {
        var comparison = Comparison()
        comparison.trusted.reserveCapacity(stamps.count)
        var matched = 0
        for entry in entries {
            let id = entry.summary.id
            guard let stamp = stamps[id] else {
                comparison.gone.append(id)
                continue
            }
            matched += 1
            guard entry.stamp == stamp, entry.settled, entry.hasText || !withText else {
                comparison.stale.append((id, stamp, entry))
                continue
            }
            comparison.trusted.append(entry)
        }
        // Files the index has never seen: the stamps left over.
        if matched < stamps.count {
            let indexed = Set(entries.lazy.map(\.summary.id))
            for (id, stamp) in stamps where !indexed.contains(id) { comparison.stale.append((id, stamp, nil)) }
        }
        return comparison
    }

    /// Reserves `count` numbers for new chats and answers the first: numbers are never given
    /// twice, not even by two processes indexing at once, so a posting never names another
    /// chat than its own.
    static func reserveNumbers(_ count: Int, in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> UInt32
    {
        let largest = try transaction.query("SELECT value FROM meta WHERE name = 'numbers'").first?.integer(0) ?? 0
        _ = try transaction.execute(
            "INSERT OR REPLACE INTO meta(name, value) VALUES('numbers', ?)", [.integer(largest + Int64(count))])
        return try number(largest + 1)
    }

    /// Writes the summary of each chat in `rows`, under its number.
    static func store(
        _ rows: [(number: UInt32, summary: ChatSummary, facts: ChatIndexFacts)], sealing: any ChatIndexSealing,
        in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        guard !rows.isEmpty else { return }
        var values: [[SQLiteValue]] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            values.append([
                .integer(Int64(row.number)), .text(row.summary.id),
                .blob(try sealed(Array(row.summary.title.utf8), binding: titleBinding(row.summary.id), sealing)),
                row.summary.engine.map { .text($0) } ?? .null, .blob(row.facts.blob),
            ])
        }
        // A chat indexed again keeps its number, given here.
        try transaction.executeMany(
            "INSERT OR REPLACE INTO chats(num, id, title, engine, facts) VALUES(?, ?, ?, ?, ?)", values)
    }

    /// Forgets the chats `ids` (their postings stay until the batches are merged, naming
    /// numbers no chat has).
    static func remove(_ ids: [String], in transaction: borrowing SQLiteTransaction) throws(SQLiteError) {
        try transaction.executeMany("DELETE FROM chats WHERE id = ?", ids.map { [.text($0)] })
    }

    /// The facts of the chat `id` as indexed, with its number.
    static func indexed(
        _ id: String, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) -> (number: UInt32, facts: ChatIndexFacts)? {
        guard let row = try transaction.query("SELECT num, facts FROM chats WHERE id = ?", [.text(id)]).first else {
            return nil
        }
        return (try number(row.integer(0)), try ChatIndexFacts(try row.blob(1)))
    }

    // MARK: - The vocabulary

    /// How many words the stored vocabulary holds: the number the next new word takes.
    static func wordCount(in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> Int {
        Int(try transaction.query("SELECT value FROM meta WHERE name = 'words'").first?.integer(0) ?? 0)
    }

    /// The whole stored vocabulary, each word at its number; a piece missing, out of place
    /// or not one this schema writes is damage.
    static func vocabulary(
        sealing: any ChatIndexSealing, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) -> Words {
        let count = try wordCount(in: transaction)
        // Room made for the count the file gives, within reason: a damaged count is caught below.
        var vocabulary = Words(capacity: min(max(count, 0), 1 << 20))
        try transaction.forEachRow("SELECT first, words FROM words ORDER BY first") { row throws(SQLiteError) in
            let first = try row.integer(0)
            guard first == Int64(vocabulary.count) else { throw damage("a piece of the vocabulary is missing") }
            let bytes = try opened(try row.blob(1), binding: wordsBinding(first: first), sealing)
            try forEachWord(in: bytes) { word throws(SQLiteError) in
                guard vocabulary.insert(word, hash: Words.hash(word)).inserted else {
                    throw damage("a word stands twice in the vocabulary")
                }
            }
        }
        guard vocabulary.count == count else { throw damage("the vocabulary is not as long as it says") }
        return vocabulary
    }

    /// Numbers `words` as the stored vocabulary does, adding to it those it lacks, and
    /// answers each word's number, by its place in `words`.
    ///
    /// Only the stored words numbered `from` or later are looked at: the caller knows every
    /// word of `words` to be absent below it (a turn passes 0; a batch, the count of the
    /// vocabulary it numbered against, so that a word another process added since keeps
    /// the number it was given). New words take the next numbers, in their order in `words`,
    /// as one new piece.
    static func number(
        _ words: Words, storedFrom from: Int, sealing: any ChatIndexSealing,
        in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) -> [UInt64] {
        let stored = try wordCount(in: transaction)
        var numbers = [UInt64?](repeating: nil, count: words.count)
        var found = 0
        if from < stored, !words.isEmpty {
            // The piece holding `from`, and every later one.
            try transaction.forEachRow(
                """
                SELECT first, words FROM words
                WHERE first >= (SELECT coalesce(max(first), 0) FROM words WHERE first <= ?) ORDER BY first
                """, [.integer(Int64(from))]
            ) { row throws(SQLiteError) in
                let first = try row.integer(0)
                let bytes = try opened(try row.blob(1), binding: wordsBinding(first: first), sealing)
                var number = Int(first)
                try forEachWord(in: bytes) { word throws(SQLiteError) in
                    defer { number += 1 }
                    guard number >= from, let place = words.number(of: word, hash: Words.hash(word)) else { return }
                    if numbers[place] == nil { found += 1 }
                    numbers[place] = UInt64(number)
                }
            }
        }
        guard found < words.count else { return numbers.map { $0 ?? 0 } }
        var piece: [UInt8] = []
        var next = UInt64(stored)
        var result: [UInt64] = []
        result.reserveCapacity(words.count)
        for place in 0..<words.count {
            if let number = numbers[place] {
                result.append(number)
                continue
            }
            let word = words.word(place)
            Postings.appendVarint(UInt64(word.count), to: &piece)
            piece.append(contentsOf: word)
            result.append(next)
            next += 1
        }
        _ = try transaction.execute(
            "INSERT INTO words(first, words) VALUES(?, ?)",
            [
                .integer(Int64(stored)),
                .blob(try sealed(piece, binding: wordsBinding(first: Int64(stored)), sealing)),
            ])
        _ = try transaction.execute(
            "INSERT OR REPLACE INTO meta(name, value) VALUES('words', ?)", [.integer(Int64(next))])
        return result
    }

    /// The most pieces of the vocabulary kept before the newest are merged: each search opens
    /// them all.
    static let pieceBound = 32

    /// Merges the newest pieces of the vocabulary into one once there are ``pieceBound``:
    /// as many as are no smaller than the next older one together, two at least.
    static func mergePieces(
        sealing: any ChatIndexSealing, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        let pieces = try transaction.query("SELECT first, length(words) FROM words ORDER BY first DESC")
        guard pieces.count >= pieceBound else { return }
        var oldest: Int64 = 0
        var taken = 0
        var total: Int64 = 0
        for piece in pieces {
            let size = try piece.integer(1)
            if taken >= 2 && size > total { break }
            oldest = try piece.integer(0)
            taken += 1
            total += size
        }
        var merged: [UInt8] = []
        try transaction.forEachRow(
            "SELECT first, words FROM words WHERE first >= ? ORDER BY first", [.integer(oldest)]
        ) { row throws(SQLiteError) in
            merged += try opened(try row.blob(1), binding: wordsBinding(first: try row.integer(0)), sealing)
        }
        _ = try transaction.execute("DELETE FROM words WHERE first >= ?", [.integer(oldest)])
        _ = try transaction.execute(
            "INSERT INTO words(first, words) VALUES(?, ?)",
            [.integer(oldest), .blob(try sealed(merged, binding: wordsBinding(first: oldest), sealing))])
    }

    /// Calls `body` with each word of a piece of the vocabulary, in order; a piece that is
    /// not one this schema writes is damage.
    private static func forEachWord(
        in piece: [UInt8], _ body: (ArraySlice<UInt8>) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        var index = 0
        while index < piece.count {
            let length = piece.withUnsafeBufferPointer { bytes in Postings.varint(bytes, &index) }
            guard let length, length > 0, length <= UInt64(piece.count - index) else {
                throw damage("a piece of the vocabulary cannot be read")
            }
            try body(piece[index..<(index + Int(length))])
            index += Int(length)
        }
    }

    // MARK: - Postings

    /// Writes `postings` as a new batch of `grams`, each bucket sealed for where it lies, each
    /// word numbered as `renumbered` says.
    static func storeBatch(
        _ postings: Postings, renumbered: (UInt64) -> UInt64 = { $0 }, sealing: any ChatIndexSealing,
        in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        guard !postings.isEmpty else { return }
        let batch = try nextBatch(in: transaction)
        let buckets = postings.buckets(renumbered: renumbered)
        var rows: [[SQLiteValue]] = []
        rows.reserveCapacity(buckets.count)
        var size = 0
        for (bucket, blob) in buckets {
            size += blob.count
            rows.append([
                .integer(Int64(bucket)), .integer(batch),
                .blob(try sealed(blob, binding: gramsBinding(bucket: bucket, batch: batch), sealing)),
            ])
        }
        try transaction.executeMany("INSERT INTO grams(bucket, batch, postings) VALUES(?, ?, ?)", rows)
        _ = try transaction.execute(
            "INSERT INTO batches(batch, size) VALUES(?, ?)", [.integer(batch), .integer(Int64(size))])
    }

    /// The number the next batch takes.
    private static func nextBatch(in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> Int64 {
        (try transaction.query("SELECT coalesce(max(batch), 0) FROM batches").first?.integer(0) ?? 0) + 1
    }

    /// Writes the numbers of the words of some text of the chat `number` (a turn, a chat
    /// changed behind keep's back) as one delta.
    static func storeDelta(
        _ words: [UInt64], chat number: UInt32, sealing: any ChatIndexSealing,
        in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        guard !words.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(words.count * 8)
        for word in words.sorted() { withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) } }
        let seq = (try transaction.query("SELECT coalesce(max(seq), 0) FROM deltas").first?.integer(0) ?? 0) + 1
        _ = try transaction.execute(
            "INSERT INTO deltas(seq, chat, words) VALUES(?, ?, ?)",
            [
                .integer(seq), .integer(Int64(number)),
                .blob(try sealed(bytes, binding: deltaBinding(seq: seq, chat: number), sealing)),
            ])
    }

    /// The numbers of the chats that hold, for every one of `runs` (each a list of word
    /// numbers), at least one of its words, by the postings and the deltas; an empty `runs` is
    /// refused by the caller (every chat would do).
    static func chats(
        holdingOneOfEach runs: [[UInt64]], sealing: any ChatIndexSealing, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) -> Set<UInt32> {
        // Each word wanted, with the runs it may stand for, and the words wanted by bucket.
        var wanted: [UInt64: [Int]] = [:]
        for (run, words) in runs.enumerated() {
            for word in words { wanted[word, default: []].append(run) }
        }
        var byBucket: [Int: Int] = [:]
        for word in wanted.keys { byBucket[Postings.bucket(word), default: 0] += 1 }
        var found = [Set<UInt32>](repeating: [], count: runs.count)
        for bucket in byBucket.keys.sorted() {
            try transaction.forEachRow(
                "SELECT batch, postings FROM grams WHERE bucket = ?", [.integer(Int64(bucket))]
            ) { row throws(SQLiteError) in
                let blob = try opened(
                    try row.blob(1), binding: gramsBinding(bucket: bucket, batch: try row.integer(0)), sealing)
                guard let entries = Postings.entries(in: blob) else {
                    throw damage("a bucket of postings cannot be read")
                }
                for (word, chats) in entries {
                    guard let held = wanted[word] else { continue }
                    for run in held { found[run].formUnion(chats) }
                }
            }
        }
        try transaction.forEachRow("SELECT seq, chat, words FROM deltas") { row throws(SQLiteError) in
            let chat = try number(row.integer(1))
            let bytes = try opened(
                try row.blob(2), binding: deltaBinding(seq: try row.integer(0), chat: chat), sealing)
            guard bytes.count % 8 == 0 else { throw damage("a delta of words cannot be read") }
            for word in Self.words(bytes) {
                guard let held = wanted[word] else { continue }
                for run in held { found[run].insert(chat) }
            }
        }
        var result: Set<UInt32>?
        for holders in found.sorted(by: { $0.count < $1.count }) {
            result = result.map { $0.intersection(holders) } ?? holders
            if result?.isEmpty == true { break }
        }
        return result ?? []
    }

    /// How many deltas and batches the index holds: past ``deltaBound`` the deltas are
    /// folded into a batch, past ``batchBound`` the batches are merged into one.
    static func pieces(in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> (deltas: Int, batches: Int) {
        let deltas = try transaction.query("SELECT count(*) FROM deltas").first?.integer(0) ?? 0
        let batches = try transaction.query("SELECT count(*) FROM batches").first?.integer(0) ?? 0
        return (Int(deltas), Int(batches))
    }

    /// The most deltas kept before they are folded into a batch: each search reads them all.
    static let deltaBound = 512
    /// The most batches kept before they are merged: each search reads a bucket of each.
    static let batchBound = 64

    /// Merges the newest pieces of the vocabulary when there are many (``mergePieces(sealing:in:)``),
    /// and folds the deltas into a batch of their own, or, at ``batchBound`` batches, the deltas
    /// and the newest batches into one (as many as are no smaller than the next older one
    /// together, two at least), leaving out chats no longer indexed: the index stays about as
    /// large as what it indexes, however many turns and changes it has seen, and a rebuild
    /// merges each posting a few times rather than at every merge. Batches are merged a bucket
    /// at a time, so what is held at once is one bucket of
    /// the batches merged (a 4,096th of them) and the deltas, never the whole index.
    static func compact(sealing: any ChatIndexSealing, in transaction: borrowing SQLiteTransaction) throws(SQLiteError)
    {
        try mergePieces(sealing: sealing, in: transaction)
        let (deltas, batches) = try pieces(in: transaction)
        let mergeNewest = batches >= batchBound
        guard mergeNewest || deltas >= deltaBound else { return }
        // One bit per chat number, not a set: every posting merged is looked up in it.
        var live = LiveChats()
        try transaction.forEachRow("SELECT num, facts FROM chats") { row throws(SQLiteError) in
            let facts = try row.withBlob(1) { blob throws(SQLiteError) in try ChatIndexFacts(blob) }
            if facts.hasText { live.insert(try number(row.integer(0))) }
        }
        var pairs: [(word: UInt64, chat: UInt32)] = []
        try transaction.forEachRow("SELECT seq, chat, words FROM deltas") { row throws(SQLiteError) in
            let chat = try number(row.integer(1))
            guard live.contains(chat) else { return }
            let bytes = try opened(
                try row.blob(2), binding: deltaBinding(seq: try row.integer(0), chat: chat), sealing)
            guard bytes.count % 8 == 0 else { throw damage("a delta of words cannot be read") }
            for word in Self.words(bytes) { pairs.append((word, chat)) }
        }
        _ = try transaction.execute("DELETE FROM deltas")
        guard mergeNewest else {
            pairs.sort { ($0.chat, $0.word) < ($1.chat, $1.word) }
            var merged = Postings()
            for pair in pairs { merged.add(pair.word, chat: pair.chat) }
            try storeBatch(merged, sealing: sealing, in: transaction)
            return
        }
        var fromDeltas = [[(word: UInt64, chat: UInt32)]](repeating: [], count: Postings.bucketCount)
        for pair in pairs { fromDeltas[Postings.bucket(pair.word)].append(pair) }
        pairs = []
        let merged = try nextBatch(in: transaction)
        // The batches merged: the newest ones, as long as the next older is no larger than
        // those taken together (and at least two), so batches grow by merging ones of about
        // their size and a posting is merged a few times over the index's life, not at every
        // merge.
        var oldest: Int64 = 0
        var taken = 0
        var total: Int64 = 0
        for row in try transaction.query(
            "SELECT batch, size FROM batches ORDER BY batch DESC")
        {
            let size = try row.integer(1)
            if taken >= 2 && size > total { break }
            oldest = try row.integer(0)
            taken += 1
            total += size
        }
        var rows: [[SQLiteValue]] = []
        var size = 0
        for bucket in 0..<Postings.bucketCount {
            var held = fromDeltas[bucket]
            fromDeltas[bucket] = []
            try transaction.forEachRow(
                "SELECT batch, postings FROM grams WHERE bucket = ? AND batch >= ?",
                [.integer(Int64(bucket)), .integer(oldest)]
            ) {
                row throws(SQLiteError) in
                let blob = try opened(
                    try row.blob(1), binding: gramsBinding(bucket: bucket, batch: try row.integer(0)), sealing)
                guard let entries = Postings.entries(in: blob) else {
                    throw damage("a bucket of postings cannot be read")
                }
                for (word, chats) in entries {
                    for chat in chats where live.contains(chat) { held.append((word, chat)) }
                }
            }
            // The rows merged go, found through the key's index.
            _ = try transaction.execute(
                "DELETE FROM grams WHERE bucket = ? AND batch >= ? AND batch < ?",
                [.integer(Int64(bucket)), .integer(oldest), .integer(merged)])
            guard !held.isEmpty else { continue }
            held.sort { ($0.word, $0.chat) < ($1.word, $1.chat) }
            let blob = Postings.blob(sorted: held)
            size += blob.count
            rows.append([
                .integer(Int64(bucket)), .integer(merged),
                .blob(try sealed(blob, binding: gramsBinding(bucket: bucket, batch: merged), sealing)),
            ])
            // Written a few hundred buckets at a time, so that the rows waiting stay small too.
            if rows.count >= 256 {
                _ = try transaction.executeMany("INSERT INTO grams(bucket, batch, postings) VALUES(?, ?, ?)", rows)
                rows = []
            }
        }
        _ = try transaction.executeMany("INSERT INTO grams(bucket, batch, postings) VALUES(?, ?, ?)", rows)
        _ = try transaction.execute(
            "DELETE FROM batches WHERE batch >= ? AND batch < ?", [.integer(oldest), .integer(merged)])
        _ = try transaction.execute(
            "INSERT INTO batches(batch, size) VALUES(?, ?)", [.integer(merged), .integer(Int64(size))])
    }

    // MARK: - Private

    /// The numbers of the chats whose words are indexed, a bit each.
    private struct LiveChats {
        private var words: [UInt64] = []

        mutating func insert(_ chat: UInt32) {
            let word = Int(chat >> 6)
            if word >= words.count { words += [UInt64](repeating: 0, count: word + 1 - words.count) }
            words[word] |= 1 << UInt64(chat & 63)
        }

        func contains(_ chat: UInt32) -> Bool {
            let word = Int(chat >> 6)
            return word < words.count && words[word] & (1 << UInt64(chat & 63)) != 0
        }
    }

    private static func words(_ bytes: [UInt8]) -> Set<UInt64> {
        var held = Set<UInt64>(minimumCapacity: bytes.count / 8)
        bytes.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count, by: 8) {
                held.insert(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
        }
        return held
    }

    private static func title(
        _ stored: [UInt8], of id: String, sealing: any ChatIndexSealing
    ) throws(SQLiteError)
        -> String
    {
        let bytes = try opened(stored, binding: titleBinding(id), sealing)
        guard let title = String(validating: bytes, as: UTF8.self) else { throw damage("a title is not UTF-8") }
        return title
    }

    private static func titleBinding(_ id: String) -> [UInt8] { Array("title\u{0}\(id)".utf8) }

    private static func gramsBinding(bucket: Int, batch: Int64) -> [UInt8] {
        Array("grams\u{0}\(bucket)\u{0}\(batch)".utf8)
    }

    private static func wordsBinding(first: Int64) -> [UInt8] { Array("words\u{0}\(first)".utf8) }

    private static func deltaBinding(seq: Int64, chat: UInt32) -> [UInt8] {
        Array("delta\u{0}\(seq)\u{0}\(chat)".utf8)
    }

    private static func sealed(
        _ bytes: [UInt8], binding: [UInt8], _ sealing: any ChatIndexSealing
    ) throws(SQLiteError)
        -> [UInt8]
    {
        try sealingCall { () throws(SealingError) in try sealing.seal(bytes, binding: binding) }
    }

    /// What `sealing` opens of `stored`; a seal that does not open is the index's damage
    /// (another key's, or altered), and rebuilds it.
    private static func opened(
        _ stored: [UInt8], binding: [UInt8], _ sealing: any ChatIndexSealing
    ) throws(SQLiteError)
        -> [UInt8]
    {
        do {
            return try sealing.open(stored, binding: binding)
        } catch {
            throw damage("a sealed value of the index does not open: \(error.code)")
        }
    }

    private static func sealingCall<T>(_ body: () throws(SealingError) -> T) throws(SQLiteError) -> T {
        do {
            return try body()
        } catch {
            throw SQLiteError(
                operation: "seal index", path: nil, extendedCode: 1, message: "sealing failed: \(error.code)",
                code: .unavailable)
        }
    }

    private static func number(_ value: Int64) throws(SQLiteError) -> UInt32 {
        guard value > 0, value <= Int64(UInt32.max) else { throw damage("a chat's number is out of range") }
        return UInt32(value)
    }

    /// Damage to the index: a value that is not what this schema writes.
    private static func damage(_ message: String) -> SQLiteError {
        SQLiteError(operation: "read index", path: nil, extendedCode: 20, message: message, code: .mismatch)
    }
}
