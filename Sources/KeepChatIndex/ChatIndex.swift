import Foundation
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite

/// A cache of the chats beside the store, `<root>/chat-index.sqlite`, so that listing and
/// searching do not read every chat: a summary of each chat, the stamp (size, modification
/// time, inode) of the file it was read from, and the text of its messages for search.
///
/// It is only ever a cache, never a second source of truth:
/// - Before answering, every chat file is `lstat`ed and compared with the stamp it was
///   indexed from; a chat whose file changed, appeared or went away since (a write by
///   another program, a crash between a turn's write and its index update, an older
///   index) is read again through the `ChatRepository`. A file is stamped *before* it is
///   read, so a change made during the read is seen by the next check.
/// - A chat that cannot be read, or whose name is not a regular file, is never cached: it
///   is read each time and listed as unreadable, and it hides no other chat.
/// - Deleting the index, or any damage to it (not a database, another schema, an I/O
///   error), costs one rebuild: the file is removed and built again from the chats; when
///   even that fails, the answer comes from reading every chat, as without an index.
/// - An entry is trusted only when its file was last changed at least `settling` before
///   it was read: a change in the same tick of the clock could otherwise leave size, time
///   and inode as they were. A chat written moments ago (by a turn, say) is read once more.
/// - Its commits are not flushed (a power cut may lose the latest of them, which the
///   stamps then catch).
///
/// The text in it is the chats' own text, as private as the chat files: the file is
/// created readable by its owner only.
package struct ChatIndex: Sendable {
    /// The index file's name in the data root.
    package static let fileName = "chat-index.sqlite"
    /// The schema this build writes; an index of any other is rebuilt.
    static let schemaVersion: Int64 = 2

    /// The index file.
    package let path: String
    private let root: String
    private let repository: ChatRepository

    /// The index of the chats of the file store under `root`, read through `repository`
    /// (a repository over that same store).
    package init(root: String, repository: ChatRepository) {
        self.root = root
        self.repository = repository
        path = root + (root.hasSuffix("/") ? "" : "/") + Self.fileName
    }

    // MARK: - Listing

    /// Every chat, as `ChatRepository.scan()` would list it, from the index where the
    /// chat's file has not changed since it was indexed. Throws only what a scan would.
    package func listing() async throws(ChatError) -> ChatSummaryListing {
        let refreshed = try await refresh(withText: false)
        return refreshed.listing
    }

    // MARK: - Search

    /// Every message containing `text` (ignoring case and accents), newest chat first, in
    /// message order within a chat, as `ChatRepository.search(_:)` answers; chats that
    /// cannot be read are not searched. Throws `ChatError.emptySearch` for blank `text`.
    package func search(_ text: String) async throws(ChatError) -> [ChatMatch] {
        guard !text.allSatisfy(\.isWhitespace) else { throw .emptySearch }
        let refreshed = try await refresh(withText: true)
        guard let database = refreshed.database else { return try await repository.search(text) }
        let folded = ChatIndexSchema.folded(text)
        let candidates: [SQLiteRow]
        do {
            candidates = try await database.read { transaction throws(SQLiteError) in
                try transaction.query(ChatIndexSchema.searchSQL, [.text(ChatIndexSchema.pattern(folded))])
            }
        } catch {
            // An index that fails answers nothing; the chats themselves still do.
            if Self.isDamage(error) { discard() }
            return try await repository.search(text)
        }
        let titles = Dictionary(refreshed.listing.chats.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var matches: [ChatMatch] = []
        for row in candidates {
            guard let hit = try? ChatIndexSchema.message(row), let summary = titles[hit.chat],
                hit.message.text.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil
            else { continue }
            matches.append(ChatMatch(chatId: hit.chat, title: summary.title, index: hit.index, message: hit.message))
        }
        let order = Dictionary(
            refreshed.listing.chats.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        matches.sort { (order[$0.chatId] ?? .max, $0.index) < (order[$1.chatId] ?? .max, $1.index) }
        return matches
    }

    // MARK: - A turn

    /// Brings the index up to date with `chat`, just written by this process under the
    /// store lock. `before` is the stamp of its file before the write (`nil` when there was
    /// none): when the index holds exactly that version, the new messages are added to it;
    /// otherwise the chat is left for the next listing or search to read again.
    ///
    /// Never fails: an index that cannot be updated is caught by the stamps later.
    package func recorded(_ chat: Chat, before: FileStamp?) async {
        guard FileManager.default.fileExists(atPath: path), let after = stamp(of: chat.id), after.isRegularFile,
            let database = try? await open()
        else { return }
        _ = try? await database.write { transaction throws(SQLiteError) in
            try ChatIndexSchema.record(chat, stamp: after, before: before, in: transaction)
        }
    }

    /// The stamp of the chat `id`'s file now, or `nil` when it has none.
    package func stamp(of id: String) -> FileStamp? {
        FileStamps.read(root: root, StorageKey(.chats, id))
    }

    // MARK: - Refreshing

    private struct Refreshed: Sendable {
        let listing: ChatSummaryListing
        /// The index, up to date with `listing`; `nil` when it could not be used.
        let database: SQLiteDatabase?
    }

    /// The index opened and its entries read.
    private struct Indexed: Sendable {
        let database: SQLiteDatabase
        let entries: [ChatIndexSchema.Entry]
    }

    /// The listing, with the index brought up to date; from a full scan when the index
    /// cannot be used even after one rebuild.
    private func refresh(withText: Bool) async throws(ChatError) -> Refreshed {
        // Any call makes the store ready (a one-time migration) before its files are stamped.
        _ = try await repository.draftIds()
        // Taken before the stamps: a file changed a while before it is settled (see below).
        let started = clock()
        // The index is read on its own thread while the files are stamped on the file
        // stores': an entry is trusted by its stamp alone, whichever was read first.
        async let prefetched = readIfPresent()
        let stamps: [String: FileStamp]
        do {
            stamps = try await FileStamps.read(root: root, .chats)
        } catch {
            _ = await prefetched
            throw .storage(error)
        }
        var indexed = await prefetched
        // No chat was ever written: nothing to cache, and nothing is created.
        if stamps.isEmpty && indexed == nil {
            return Refreshed(listing: ChatSummaryListing(chats: [], unreadable: []), database: nil)
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
        return Refreshed(listing: ChatSummaryListing(try await repository.scan()), database: nil)
    }

    /// The index, opened (created when missing), and its entries.
    private func read() async throws(SQLiteError) -> Indexed {
        let database = try await open()
        let entries = try await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.entries(in: transaction)
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

    /// One pass: the index held against the stamps, the changed chats read again, the
    /// index updated.
    private func refresh(
        _ index: Indexed, against stamps: [String: FileStamp], started: Int64, withText: Bool
    ) async throws -> Refreshed {
        let known = ChatIndexSchema.compare(index.entries, with: stamps, withText: withText)
        var chats = known.trusted
        var unreadable: [UnreadableChat] = []
        var changed: [(Chat, FileStamp)] = []
        // Chats no longer there, or no longer cacheable, leave the index.
        var gone = known.gone
        for (id, stamp, indexed) in known.stale {
            // Not a file (a symlink, a directory, a FIFO): never opened, never cached.
            if let irregularity = stamp.irregularity {
                unreadable.append(UnreadableChat(id: id, reason: irregularity))
                if indexed { gone.append(id) }
                continue
            }
            do throws(ChatError) {
                guard let chat = try await repository.read(id) else {  // gone since the listing
                    if indexed { gone.append(id) }
                    continue
                }
                chats.append(ChatSummary(chat))
                changed.append((chat, stamp))
                continue
            } catch .unreadable(let chat) {
                unreadable.append(chat)
            } catch .storage(let error) {
                // The directory was listed, so a file that fails its read is that file's
                // problem (EACCES, EIO), never the listing's.
                unreadable.append(UnreadableChat(id: id, reason: error.description))
            } catch {
                unreadable.append(UnreadableChat(id: id, reason: "\(error)"))
            }
            if indexed { gone.append(id) }
        }
        if !changed.isEmpty || !gone.isEmpty {
            // Oldest first, so that the index's own order (the newest last) stays close to
            // a listing's, and the next listing's sort has little to do.
            let changes = changed.sorted {
                ($0.0.updated, $0.0.created, $0.0.id) < ($1.0.updated, $1.0.created, $1.0.id)
            }
            let removals = gone
            try await index.database.write { transaction throws(SQLiteError) in
                for id in removals { try ChatIndexSchema.remove(id, in: transaction) }
                for (chat, stamp) in changes {
                    try ChatIndexSchema.replace(
                        chat, stamp: stamp, settled: stamp.modified < started - Self.settling, withText: withText,
                        in: transaction)
                }
            }
        }
        return Refreshed(listing: ChatSummaryListing(chats: chats, unreadable: unreadable), database: index.database)
    }

    /// The index, opened (created when missing) with its schema in place; an index of
    /// another schema is emptied first.
    private func open() async throws(SQLiteError) -> SQLiteDatabase {
        // A FIFO or device planted at a name SQLite opens would hang the first read: refused
        // before SQLite sees it, as out of reach (not damage: nothing is removed), so the
        // chats answer instead.
        do throws(StorageError) {
            try FileKind.refuseSpecial(path, path + "-wal", path + "-shm", path + "-journal")
        } catch {
            throw SQLiteError(
                operation: "open", path: error.path, extendedCode: 14, message: error.reason ?? error.description,
                code: .unavailable)
        }
        let database = try SQLiteDatabase(path: path, busyTimeout: .seconds(5), durable: false)
        // Read first, so listings side by side do not queue for the write lock; a damaged
        // file fails the write below, with its error.
        let current = try? await database.read { transaction throws(SQLiteError) in
            try ChatIndexSchema.version(in: transaction)
        }
        if current != Self.schemaVersion {
            try await database.write { transaction throws(SQLiteError) in
                try ChatIndexSchema.prepare(in: transaction, version: Self.schemaVersion)
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
    /// a value of the wrong type, an I/O error), so that it is to be removed and rebuilt,
    /// rather than out of reach for now (locked by another process past the timeout, the
    /// disk full, the file refused).
    static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return true }
        return ![.busy, .full, .unavailable].contains(error.code)
    }

    /// Removes the index and its journal files: the next use rebuilds it.
    private func discard() {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }
}
