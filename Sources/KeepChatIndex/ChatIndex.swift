import Foundation
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite

/// A cache of the chats beside the store, `<root>/chat-index.sqlite`, so that listing and
/// searching do not read every chat: a summary of each chat, the stamp (size, modification
/// time, inode) of the file it was read from, and, for search, the vocabulary of their
/// text (every distinct word, ``Words``) and which chats hold each word (``Postings``) —
/// never the text itself.
///
/// It is only ever a cache, never a second source of truth:
/// - Before answering, every chat is stamped through the store (``/KeepPorts/StampedStorage``:
///   the file store `lstat`s its file) and compared with the stamp it was indexed from; a chat whose file changed, appeared or went away since (a write by
///   another program, a crash between a turn's write and its index update, an older
///   index) is read again through the `ChatRepository`. A file is stamped *before* it is
///   read, so a change made during the read is seen by the next check.
/// - A chat that cannot be read, or whose name is not a regular file, is never cached: it
///   is read each time and listed as unreadable, and it hides no other chat.
/// - Deleting the index, or any damage to it (not a database, another schema, another key,
///   an I/O error, a seal that does not open), costs one rebuild: the file is removed and
///   built again from the chats; when even that fails, the answer comes from reading every
///   chat, as without an index.
/// - An entry is trusted only when its file was last changed at least `settling` before
///   it was read: a change in the same tick of the clock could otherwise leave size, time
///   and inode as they were. A chat written moments ago (by a turn, say) is read once more.
/// - Its commits are not flushed (a power cut may lose the latest of them, which the
///   stamps then catch).
///
/// A listing indexes the summaries of the chats it reads again (and their words too when
/// there are few), so it is never kept waiting for the search half; a search that finds
/// chats to read again (or words missing) reads each once and indexes its summary and
/// its words together, in one pass. Either reads the chats a chunk at a time on every
/// core and writes them a batch at a time (``Limits``), one transaction per batch:
/// interrupted, it keeps the batches it finished, and the next listing or search goes on
/// from there. `progress` hears how far it got after each batch.
///
/// What it holds is sealed as the chats are (``ChatIndexSealing``): titles, the vocabulary
/// and the postings. The file is created readable by its owner only.
package struct ChatIndex: Sendable {
    /// The index file's name in the data root.
    package static let fileName = "chat-index.sqlite"

    /// The index file.
    package let path: String
    private let storage: any StampedStorage
    private let repository: ChatRepository
    private let sealing: any ChatIndexSealing
    private let progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?
    private let limits: Limits

    /// How much one batch of indexing takes, and how many changed chats a listing indexes
    /// the text of as it reads them.
    package struct Limits: Sendable {
        /// The most chats indexed in one batch.
        package var batchChats = 2048
        /// The most postings (a chat holding a word) indexed in one batch: what bounds a
        /// rebuild's memory, 8 bytes each as the batch fills and 12 as it is written.
        package var batchPostings = 1_000_000
        /// Up to this many chats changed since the last look, a listing indexes their
        /// words too (it reads them anyway), one delta each; past it, it leaves them to
        /// the next search, which indexes them in batches.
        package var inlineText = 64

        /// The limits keep runs with.
        package init() {}
    }

    /// The index in the data root `root` of the chats of `storage`, which it stamps and
    /// reads them through (one store for both, so the two never disagree), keeping what it
    /// holds as `sealing` says; `progress` hears, after each batch of a long indexing, how
    /// many chats of how many are done.
    package init(
        root: String, storage: any StampedStorage, sealing: any ChatIndexSealing = PlainChatIndexing(),
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil, limits: Limits = Limits()
    ) {
        self.limits = limits
        self.storage = storage
        repository = ChatRepository(storage: storage)
        self.sealing = sealing
        self.progress = progress
        path = root + (root.hasSuffix("/") ? "" : "/") + Self.fileName
    }

    // MARK: - Listing

    /// Every chat, as `ChatRepository.scan()` would list it, from the index where the
    /// chat's file has not changed since it was indexed. Throws only what a scan would.
    package func listing() async throws(ChatError) -> ChatSummaryListing {
        try await refresh(withText: false).listing
    }

    // MARK: - Search

    /// Every message containing `text` (ignoring case and accents), newest chat first, in
    /// message order within a chat, as `ChatRepository.search(_:)` answers; chats that
    /// cannot be read are not searched. Throws `ChatError.emptySearch` for blank `text`.
    ///
    /// Only the chats that hold, for each run of word scalars in `text`, a word that may hold
    /// it (``WordQuery``) are read (all of them for text with no such run, punctuation only),
    /// and each message of those is checked as the repository checks it.
    package func search(_ text: String) async throws(ChatError) -> [ChatMatch] {
        guard !text.allSatisfy(\.isWhitespace) else { throw .emptySearch }
        let refreshed = try await refresh(withText: true)
        guard let database = refreshed.database else { return try await repository.search(text) }
        var candidates = refreshed.listing.chats
        var folding = TextFolding()
        let query = WordQuery(folded: folding.folded(text))
        if !query.runs.isEmpty {
            let holders: Set<UInt32>
            do {
                holders = try await database.read { [sealing] transaction throws(SQLiteError) in
                    let vocabulary = try ChatIndexSchema.vocabulary(sealing: sealing, in: transaction)
                    var runs: [[UInt64]] = []
                    for run in query.runs {
                        let words = WordQuery.numbers(admittedBy: run, in: vocabulary)
                        // No word may hold it: no chat does.
                        if words.isEmpty { return [] }
                        runs.append(words)
                    }
                    return try ChatIndexSchema.chats(holdingOneOfEach: runs, sealing: sealing, in: transaction)
                }
            } catch {
                // An index that fails answers nothing; the chats themselves still do.
                if Self.isDamage(error) { discard() }
                return try await repository.search(text)
            }
            candidates = candidates.filter { refreshed.numbers[$0.id].map(holders.contains) ?? true }
        }
        return await Self.matches(of: text, in: candidates[...], repository: repository)
    }

    /// The messages of `candidates` that contain `text`, in the candidates' order: each
    /// chat's stored text is checked first (``StoredTextCheck``) and only a chat that passes
    /// is decoded and its messages compared as the repository compares them. The candidates
    /// are checked in one slice per core, side by side.
    private static func matches(
        of text: String, in candidates: ArraySlice<ChatSummary>, repository: ChatRepository
    ) async -> [ChatMatch] {
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, candidates.count / 64))
        guard slices > 1 else { return await matches(of: text, inSlice: candidates, repository: repository) }
        let parts = await withTaskGroup(of: (Int, [ChatMatch]).self) { group in
            let start = candidates.startIndex
            for slice in 0..<slices {
                let part = candidates[
                    (start + candidates.count * slice / slices)..<(start + candidates.count * (slice + 1) / slices)]
                group.addTask { (slice, await matches(of: text, inSlice: part, repository: repository)) }
            }
            var parts = [[ChatMatch]](repeating: [], count: slices)
            for await (slice, found) in group { parts[slice] = found }
            return parts
        }
        return parts.flatMap { $0 }
    }

    private static func matches(
        of text: String, inSlice candidates: ArraySlice<ChatSummary>, repository: ChatRepository
    ) async -> [ChatMatch] {
        var check = StoredTextCheck(text)
        var matches: [ChatMatch] = []
        for candidate in candidates {
            // A chat that cannot be read now is not searched, as in a scan. Of a chat that may
            // hold the text, only the lines that may are decoded (a chat of hundreds of MB is
            // not decoded whole for the few lines that match).
            guard
                let found = try? await repository.messages(
                    of: candidate.id, admitting: { check.mayHold(utf8: $0) },
                    lineAdmitting: { check.mayHold(utf8: $0) },
                    where: { $0.text.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil })
            else { continue }
            for (index, message) in found.messages {
                matches.append(
                    ChatMatch(chatId: found.chat.id, title: found.chat.title, index: index, message: message))
            }
        }
        return matches
    }

    // MARK: - A turn

    /// Brings the index up to date with `chat`, just written by this process under the
    /// store lock. `before` is the stamp of its file before the write (`nil` when there was
    /// none): when the index holds exactly that version with its words, the last two
    /// messages' words are added to it (a word new to the vocabulary takes its number in
    /// the same transaction); a chat new to the index is indexed whole; otherwise its
    /// summary is updated and its text left for the next search to read.
    ///
    /// Never fails: an index that cannot be updated is caught by the stamps later.
    package func recorded(_ chat: Chat, before: ValueStamp?) async {
        guard FileManager.default.fileExists(atPath: path), let after = await stamp(of: chat.id), after.isRegularFile,
            let database = try? await open()
        else { return }
        let summary = ChatSummary(chat)
        _ = try? await database.write { [sealing] transaction throws(SQLiteError) in
            var folding = TextFolding()
            var words = Words()
            let number: UInt32
            var hasText = true
            if let old = try ChatIndexSchema.indexed(chat.id, in: transaction) {
                number = old.number
                if let before, old.facts.stamp == before, old.facts.hasText,
                    old.facts.messages == chat.messages.count - 2
                {
                    Self.add(chat.messages.suffix(2), to: &words, folding: &folding)
                } else {
                    hasText = false
                }
            } else {
                number = try ChatIndexSchema.reserveNumbers(1, in: transaction)
                Self.add(chat.messages[...], to: &words, folding: &folding)
            }
            // Just written: never settled, so the next listing reads it once more.
            let facts = ChatIndexFacts(summary, stamp: after, hasText: hasText, settled: false)
            try ChatIndexSchema.store([(number, summary, facts)], sealing: sealing, in: transaction)
            if hasText {
                let numbers = try ChatIndexSchema.number(words, storedFrom: 0, sealing: sealing, in: transaction)
                try ChatIndexSchema.storeDelta(numbers, chat: number, sealing: sealing, in: transaction)
            }
            try ChatIndexSchema.compact(sealing: sealing, in: transaction)
        }
    }

    /// The stamp of the chat `id` now, through the store, or `nil` when it has none (or
    /// the store cannot stamp it now: the next refresh reads it again).
    package func stamp(of id: String) async -> ValueStamp? {
        try? await storage.stamp(StorageKey(.chats, id))
    }

    // MARK: - Refreshing

    private struct Refreshed: Sendable {
        let listing: ChatSummaryListing
        /// Each listed chat's number in the index.
        let numbers: [String: UInt32]
        /// The index, up to date with `listing`; `nil` when it could not be used.
        let database: SQLiteDatabase?
    }

    /// The index opened and its entries read.
    private struct Indexed: Sendable {
        let database: SQLiteDatabase
        let entries: [ChatIndexSchema.Entry]
    }

    /// The listing, with the index brought up to date (and its words, `withText`); from
    /// a full scan when the index cannot be used even after one rebuild.
    private func refresh(withText: Bool) async throws(ChatError) -> Refreshed {
        // Any call makes the store ready (a one-time migration) before its files are stamped.
        _ = try await repository.draftIds()
        // Taken before the stamps: a file changed a while before it is settled (see below).
        let started = clock()
        // The index is read on its own thread while the files are stamped on the file
        // stores': an entry is trusted by its stamp alone, whichever was read first.
        async let prefetched = readIfPresent()
        let stamps: [String: ValueStamp]
        do {
            stamps = try await storage.stamps(.chats)
        } catch {
            _ = await prefetched
            throw .storage(error)
        }
        var indexed = await prefetched
        // No chat was ever written: nothing to cache, and nothing is created.
        if stamps.isEmpty && indexed == nil {
            return Refreshed(listing: ChatSummaryListing(chats: [], unreadable: []), numbers: [:], database: nil)
        }
        for attempt in 0..<2 {
            do {
                let index: Indexed
                if let indexed { index = try indexed.get() } else { index = try await read() }
                return try await refresh(index, against: stamps, started: started, withText: withText)
            } catch {
                // Busy past the timeout, a full disk, a refused file: the index is not
                // damaged, only out of reach this time; the chats answer instead.
                guard Self.isDamage(error) else { break }
                if attempt == 0 { discard() }
                indexed = nil
            }
        }
        let listing = ChatSummaryListing(try await repository.scan())
        return Refreshed(listing: listing, numbers: [:], database: nil)
    }

    /// The index, opened (created when missing), and its entries.
    private func read() async throws(SQLiteError) -> Indexed {
        let database = try await open()
        let entries = try await database.read { [sealing] transaction throws(SQLiteError) in
            try ChatIndexSchema.entries(sealing: sealing, in: transaction)
        }
        return Indexed(database: database, entries: entries)
    }

    /// ``read()`` when the index file exists (`nil` when not: nothing is created), its
    /// error kept as a value.
    private func readIfPresent() async -> Result<Indexed, SQLiteError>? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return .success(try await read())
        } catch {
            return .failure(error)
        }
    }

    /// The chats of one batch being indexed: their summaries, and their words, numbered by
    /// the vocabulary in memory (``Vocabulary``).
    private struct Batch {
        var rows: [(number: UInt32, summary: ChatSummary, facts: ChatIndexFacts)] = []
        /// Each chat's words, for chats indexed one delta each.
        var deltas: [(number: UInt32, words: [UInt64])] = []
        /// The words of the chats indexed in a batch of postings.
        var postings = Postings()
    }

    /// The vocabulary as a pass numbers words: the stored one, read as the pass begins, and
    /// the words its batch brought since, numbered after it.
    private struct Vocabulary: Sendable {
        /// The words the stored vocabulary holds, under the same numbers. Chats are read
        /// against it (a snapshot) while the batch is filled; it only grows, by a batch's
        /// words once they are written.
        var stored: Words
        /// The batch's own new words, numbered from `stored.count` on: provisional until the
        /// batch is written.
        var fresh = Words()
        /// Goes up when the stored words are read again (another process numbered words
        /// first): a snapshot of an older one names words by numbers no longer theirs.
        var generation = 0

        init(stored: Words) { self.stored = stored }

        /// The number of `word`, the next one in `fresh` when it is new.
        mutating func number(of word: UnsafeBufferPointer<UInt8>, hash: UInt64) -> UInt64 {
            if let number = stored.number(of: word, hash: hash) { return UInt64(number) }
            return UInt64(stored.count + fresh.insert(word, hash: hash).number)
        }
    }

    /// A chat's words as read against a snapshot of the stored vocabulary: those it holds,
    /// by their numbers there, and the others.
    private struct ReadWords: Sendable {
        let known: [UInt32]
        let unknown: Words.List
        let generation: Int

        var count: Int { known.count + unknown.count }
    }

    /// What the pass made of one chat to read again.
    private enum Reading: Sendable {
        /// Gone since it was stamped.
        case gone
        case unreadable(UnreadableChat)
        /// Read: its summary, its words when they are to be indexed now, and whether the
        /// index holds its words once this is written (those indexed for this very file
        /// stay).
        case read(ChatSummary, words: ReadWords?, hasText: Bool)
    }

    /// A chat to read again: its id, its file's stamp, and its entry in the index, if any.
    private typealias Stale = (id: String, stamp: ValueStamp, entry: ChatIndexSchema.Entry?)

    /// How many stale chats are read side by side before their postings join the batch (64:
    /// a cold rebuild of 40,000 realistic chats peaked at 88–93 MiB with it, 96–100 MiB with
    /// 128, in the same time, by hand on two processors).
    private static let readingChunk = 64
    /// How many chunks are read ahead of the one joining the batch, so that the cores keep
    /// reading while a batch is written: with ``readingChunk``, what bounds the words held
    /// between the reading and the batch.
    private static let chunksAhead = 2

    /// One pass: the index held against the stamps, the changed chats read again (a chunk at
    /// a time, one slice per core side by side) and their summaries indexed, with their
    /// words when `withText` or when they are few, a batch at a time, each batch written
    /// in a transaction of its own.
    private func refresh(
        _ index: Indexed, against stamps: [String: ValueStamp], started: Int64, withText: Bool
    ) async throws -> Refreshed {
        let known = ChatIndexSchema.compare(index.entries, with: stamps, withText: withText)
        var chats = known.trusted.map(\.summary)
        var numbers = Dictionary(
            known.trusted.map { ($0.summary.id, $0.number) }, uniquingKeysWith: { first, _ in first })
        var unreadable: [UnreadableChat] = []
        // Chats no longer there, or no longer cacheable, leave the index.
        var gone = known.gone
        let stale = known.stale
        // Text is indexed when a search wants it, or when there is so little of it that a
        // listing may as well (it reads those chats anyway): a listing is never kept waiting
        // for the search half.
        let indexText = withText || stale.count <= limits.inlineText
        // Many chats at once go into batches of postings; a few, into a delta each.
        let inBatches = stale.count > limits.inlineText
        let newNumbers = stale.lazy.filter { $0.entry == nil }.count
        var nextNumber: UInt32 = 0
        if newNumbers > 0 {
            nextNumber = try await index.database.write { transaction throws(SQLiteError) in
                try ChatIndexSchema.reserveNumbers(newNumbers, in: transaction)
            }
        }
        var batch = Batch()
        if inBatches { batch.postings.reserve(limits.batchPostings) }
        var vocabulary: Vocabulary?
        if indexText, !stale.isEmpty { vocabulary = try await read(vocabularyOf: index.database) }
        var done = 0
        // Chunks are read ahead (``chunksAhead``) while the one before them joins the batch
        // and the batch is written: the reading keeps every core busy, the batch one. Each is
        // read against the stored vocabulary as it is when its reading starts, so most words
        // come numbered already.
        typealias Pending = (chunk: ArraySlice<Stale>, snapshot: Words?, readings: Task<[Reading], Never>)
        func reading(from start: Int) -> Pending? {
            guard start < stale.endIndex else { return nil }
            let chunk = stale[start..<min(stale.endIndex, start + Self.readingChunk)]
            let snapshot = indexText ? vocabulary?.stored : nil
            let generation = vocabulary?.generation ?? 0
            return (
                chunk, snapshot,
                Task { await read(chunk, indexingText: indexText, against: snapshot, generation: generation) }
            )
        }
        var ahead: [Pending] = []
        var nextStart = stale.startIndex
        func readAhead() {
            while ahead.count < Self.chunksAhead, let pending = reading(from: nextStart) {
                ahead.append(pending)
                nextStart = pending.chunk.endIndex
            }
        }
        readAhead()
        defer { for pending in ahead { pending.readings.cancel() } }
        while !ahead.isEmpty {
            let (chunk, snapshot, pending) = ahead.removeFirst()
            let readings = await pending.value
            readAhead()
            for ((id, stamp, entry), reading) in zip(chunk, readings) {
                let summary: ChatSummary
                let words: ReadWords?
                let hasText: Bool
                switch reading {
                case .gone:
                    if entry != nil { gone.append(id) }
                    continue
                case .unreadable(let chat):
                    unreadable.append(chat)
                    if entry != nil { gone.append(id) }
                    continue
                case .read(let read, let held, let indexed):
                    summary = read
                    words = held
                    hasText = indexed
                }
                let number: UInt32
                if let entry {
                    number = entry.number
                } else {
                    number = nextNumber
                    nextNumber += 1
                }
                if !batch.rows.isEmpty,
                    batch.rows.count >= limits.batchChats
                        || batch.postings.postingCount + (words?.count ?? 0) > limits.batchPostings
                {
                    try await write(batch, removing: [], vocabulary: &vocabulary, in: index.database)
                    done += batch.rows.count
                    progress?(done, stale.count)
                    batch = Batch()
                    if inBatches { batch.postings.reserve(limits.batchPostings) }
                }
                if let words, var current = vocabulary {
                    // Let go, so the batch's words grow in place rather than in a copy.
                    vocabulary = nil
                    let held = Self.numbers(of: words, snapshot: snapshot, in: &current)
                    vocabulary = current
                    if inBatches {
                        for word in held { batch.postings.add(word, chat: number) }
                    } else {
                        batch.deltas.append((number, held))
                    }
                }
                let settled = stamp.modified < started - Self.settling
                batch.rows.append(
                    (number, summary, ChatIndexFacts(summary, stamp: stamp, hasText: hasText, settled: settled)))
                chats.append(summary)
                numbers[id] = number
            }
        }
        if !batch.rows.isEmpty || !gone.isEmpty {
            try await write(batch, removing: gone, vocabulary: &vocabulary, in: index.database)
            done += batch.rows.count
            if done > 0, inBatches { progress?(done, stale.count) }
        }
        return Refreshed(
            listing: ChatSummaryListing(chats: chats, unreadable: unreadable), numbers: numbers,
            database: index.database)
    }

    /// The numbers of a chat's words as read against `snapshot`, in `vocabulary`: those the
    /// snapshot numbered keep their numbers (looked up again by their words when the stored
    /// vocabulary was read again since), the others are looked up, and numbered when new.
    private static func numbers(
        of words: ReadWords, snapshot: Words?, in vocabulary: inout Vocabulary
    ) -> [UInt64] {
        var numbers: [UInt64] = []
        numbers.reserveCapacity(words.count)
        if words.generation == vocabulary.generation {
            for word in words.known { numbers.append(UInt64(word)) }
        } else if let snapshot {
            snapshot.bytes.withUnsafeBufferPointer { bytes in
                for word in words.known {
                    let start = word == 0 ? 0 : Int(snapshot.ends[Int(word) - 1])
                    let held = UnsafeBufferPointer(rebasing: bytes[start..<Int(snapshot.ends[Int(word)])])
                    numbers.append(vocabulary.number(of: held, hash: snapshot.hashes[Int(word)]))
                }
            }
        }
        words.unknown.bytes.withUnsafeBufferPointer { bytes in
            var start = 0
            for (end, hash) in zip(words.unknown.ends, words.unknown.hashes) {
                let word = UnsafeBufferPointer(rebasing: bytes[start..<Int(end)])
                start = Int(end)
                numbers.append(vocabulary.number(of: word, hash: hash))
            }
        }
        return numbers
    }

    /// The chats of `chunk` read again, in its order, their words gathered when
    /// `indexingText` and numbered as `snapshot` (the stored vocabulary of `generation`)
    /// numbers them: one slice per core, side by side.
    private func read(
        _ chunk: ArraySlice<Stale>, indexingText: Bool, against snapshot: Words?, generation: Int
    ) async -> [Reading] {
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, chunk.count / 16))
        guard slices > 1 else {
            return await readSlice(chunk, indexingText: indexingText, against: snapshot, generation: generation)
        }
        return await withTaskGroup(of: (Int, [Reading]).self) { group in
            let start = chunk.startIndex
            for slice in 0..<slices {
                let part = chunk[(start + chunk.count * slice / slices)..<(start + chunk.count * (slice + 1) / slices)]
                group.addTask {
                    (
                        slice,
                        await readSlice(part, indexingText: indexingText, against: snapshot, generation: generation)
                    )
                }
            }
            var parts = [[Reading]](repeating: [], count: slices)
            for await (slice, part) in group { parts[slice] = part }
            return parts.flatMap { $0 }
        }
    }

    private func readSlice(
        _ part: ArraySlice<Stale>, indexingText: Bool, against snapshot: Words?, generation: Int
    ) async -> [Reading] {
        var gathering = snapshot.map(ChatWords.init(numberedBy:))
        var readings: [Reading] = []
        readings.reserveCapacity(part.count)
        for (id, stamp, entry) in part {
            // Not a file (a symlink, a directory, a FIFO): never opened, never cached.
            if let irregularity = stamp.irregularity {
                readings.append(.unreadable(UnreadableChat(id: id, reason: irregularity)))
                continue
            }
            let chat: Chat
            do throws(ChatError) {
                guard let read = try await repository.read(id) else {  // gone since the listing
                    readings.append(.gone)
                    continue
                }
                chat = read
            } catch {
                if error.code == .unreadable, let chat = error.chat {
                    readings.append(.unreadable(chat))
                } else if let failure = error.storage {
                    // The directory was listed, so a file that fails its read is that file's
                    // problem (EACCES, EIO), never the listing's.
                    readings.append(.unreadable(UnreadableChat(id: id, reason: failure.description)))
                } else {
                    readings.append(.unreadable(UnreadableChat(id: id, reason: "\(error)")))
                }
                continue
            }
            let summary = ChatSummary(chat)
            // The words indexed for this very file stay: a turn indexed them as it wrote.
            if let entry, entry.hasText, entry.stamp == stamp, entry.summary == summary {
                readings.append(.read(summary, words: nil, hasText: true))
                continue
            }
            guard indexingText, let (known, unknown) = gathering?.words(of: chat.messages) else {
                readings.append(.read(summary, words: nil, hasText: false))
                continue
            }
            readings.append(
                .read(summary, words: ReadWords(known: known, unknown: unknown, generation: generation), hasText: true))
        }
        return readings
    }

    /// Writes one batch (and forgets `gone`) in one transaction, then folds the index's
    /// pieces together when there are many.
    ///
    /// The batch's new words join the stored vocabulary in the same transaction: when
    /// another process added words since the vocabulary was read, a word it added keeps
    /// its number, the others take the next ones, the batch's postings are written under
    /// those numbers, and the stored vocabulary is read again.
    private func write(
        _ batch: Batch, removing gone: [String], vocabulary: inout Vocabulary?, in database: SQLiteDatabase
    ) async throws(SQLiteError) {
        let known = vocabulary
        let renumbered = try await database.write { [sealing] transaction throws(SQLiteError) -> Bool in
            let storedCount = known?.stored.count ?? 0
            let numbers = try ChatIndexSchema.number(
                known?.fresh ?? Words(capacity: 0), storedFrom: storedCount, sealing: sealing, in: transaction)
            let renumbered = numbers.enumerated().contains { $0.element != UInt64(storedCount + $0.offset) }
            let renumber = { (word: UInt64) -> UInt64 in word < storedCount ? word : numbers[Int(word) - storedCount] }
            try ChatIndexSchema.remove(gone, in: transaction)
            try ChatIndexSchema.store(batch.rows, sealing: sealing, in: transaction)
            try ChatIndexSchema.storeBatch(batch.postings, renumbered: renumber, sealing: sealing, in: transaction)
            for (number, words) in batch.deltas {
                try ChatIndexSchema.storeDelta(words.map(renumber), chat: number, sealing: sealing, in: transaction)
            }
            try ChatIndexSchema.compact(sealing: sealing, in: transaction)
            return renumbered
        }
        guard var written = vocabulary else { return }
        vocabulary = nil
        if renumbered {
            let generation = written.generation
            written = try await read(vocabularyOf: database)
            written.generation = generation + 1
        } else {
            // The batch's words are stored now, under the numbers they had.
            let fresh = written.fresh
            written.fresh = Words()
            for word in 0..<fresh.count { written.stored.insert(fresh.word(word), hash: fresh.hashes[word]) }
        }
        vocabulary = written
    }

    /// The stored vocabulary, read for a pass to number words against.
    private func read(vocabularyOf database: SQLiteDatabase) async throws(SQLiteError) -> Vocabulary {
        let words = try await database.read { [sealing] transaction throws(SQLiteError) in
            try ChatIndexSchema.vocabulary(sealing: sealing, in: transaction)
        }
        return Vocabulary(stored: words)
    }

    /// Adds the words of `messages`' text, folded, to `words`.
    private static func add(
        _ messages: ArraySlice<ChatMessage>, to words: inout Words, folding: inout TextFolding
    ) {
        for message in messages { words.add(message.text, folding: &folding) }
    }

    /// The index, opened (created when missing) with its schema in place; an index of
    /// another schema, or made under another key, is emptied first.
    private func open() async throws(SQLiteError) -> SQLiteDatabase {
        // A FIFO or device planted at a name SQLite opens would hang the first read: refused
        // before SQLite sees it, as out of reach (not damage: nothing is removed), so the
        // chats answer instead.
        do throws(StorageError) {
            try FileKind.refuseUnsafe(path, path + "-wal", path + "-shm", path + "-journal")
        } catch {
            throw SQLiteError(
                operation: "open", path: error.path, extendedCode: 14, message: error.reason ?? error.description,
                code: .unavailable)
        }
        let database = try SQLiteDatabase(path: path, busyTimeout: .seconds(5), durable: false)
        // Read first, so listings side by side do not queue for the write lock; a damaged
        // file fails the write below, with its error.
        let keyCheck = sealing.keyCheck
        let current = try? await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.isCurrent(keyCheck: keyCheck, in: transaction)
        }
        if current != true {
            try await database.write { transaction throws(SQLiteError) in
                try ChatIndexSchema.prepare(keyCheck: keyCheck, in: transaction)
            }
        }
        return database
    }

    /// How long before a listing began a file must have been changed for its entry to be
    /// trusted, in nanoseconds: far longer than any file system's timestamp granularity,
    /// so a later change of that file cannot carry the same modification time.
    static let settling: Int64 = 2_000_000_000

    /// The time now, in nanoseconds since 1970, as file modification times are kept.
    private func clock() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Whether `error` says the index itself is damaged (not a database, a table missing,
    /// a value of the wrong type, a seal that does not open, an I/O error), so that it is
    /// to be removed and rebuilt, rather than out of reach for now (locked by another
    /// process past the timeout, the disk full, the file refused, the key not at hand).
    static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return !(error is SealingError) }
        return ![.busy, .full, .unavailable].contains(error.code)
    }

    /// Removes the index and its journal files: the next use rebuilds it.
    private func discard() {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }
}
