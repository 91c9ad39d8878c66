import Foundation
import KeepCore
import KeepFileStore
import KeepSQLite

/// The tables of the ``ChatIndex`` and every statement on them, in one place.
///
/// - `meta`: the schema version.
/// - `chats`: one row per indexed chat: its id, title and engine, and its
///   ``ChatIndexFacts`` in one blob: its file's stamp, the rest of its summary, and whether
///   its messages are in `messages` (a listing indexes summaries only).
/// - `messages`: each message of the chats with `has_text`, as stored.
/// - `message_text`: an FTS5 trigram index of each message's text folded (case and accents
///   removed), keyed by the `messages` row: a GLOB for any run of three or more characters
///   is answered from it without reading the chats (`detail=none`: the smallest index that
///   still serves GLOB). A match is only a candidate; the search checks it against
///   the message itself, so its meaning stays that of ``ChatRepository/search(_:)``.
enum ChatIndexSchema {
    /// One row of `chats`: the summary of a chat as indexed, the stamp of the file it was
    /// read from, and whether it holds the chat's text and was settled when indexed.
    struct Entry: Sendable {
        let summary: ChatSummary
        let stamp: FileStamp
        let hasText: Bool
        let settled: Bool
    }

    /// The index held against the chat files' stamps: what it can answer, what must be
    /// read again, and what it holds of files that are gone.
    struct Comparison: Sendable {
        /// The summaries of the chats whose entries are trusted: the file's stamp is the
        /// one indexed, it was settled when indexed, and the entry holds the text when
        /// the text is wanted.
        var trusted: [ChatSummary] = []
        /// The chats to read again (changed, new, not settled, without the text wanted, or
        /// no longer a regular file), with whether the index holds an entry for them.
        var stale: [(id: String, stamp: FileStamp, indexed: Bool)] = []
        /// Indexed chats whose file is gone.
        var gone: [String] = []
    }

    /// One message found by a search, before it is checked.
    struct Hit {
        let chat: String
        let index: Int
        let message: ChatMessage
    }

    /// The schema version the file holds; throws when it holds none.
    static func version(in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> Int64? {
        try transaction.query("SELECT value FROM meta WHERE name = 'schema'").first?.integer(0)
    }

    /// Creates the tables, or empties and recreates them when the file holds another
    /// schema version.
    static func prepare(in transaction: borrowing SQLiteTransaction, version: Int64) throws(SQLiteError) {
        _ = try transaction.execute("CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
        if try Self.version(in: transaction) == version { return }
        for table in ["message_text", "messages", "chats"] {
            _ = try transaction.execute("DROP TABLE IF EXISTS \(table)")
        }
        _ = try transaction.execute(
            """
            CREATE TABLE chats(id TEXT PRIMARY KEY, title TEXT NOT NULL, engine TEXT, facts BLOB NOT NULL)
            """)
        _ = try transaction.execute(
            """
            CREATE TABLE messages(id INTEGER PRIMARY KEY, chat TEXT NOT NULL, position INTEGER NOT NULL,
              role TEXT NOT NULL, time REAL NOT NULL, text TEXT NOT NULL)
            """)
        _ = try transaction.execute("CREATE INDEX messages_by_chat ON messages(chat, position)")
        _ = try transaction.execute(
            "CREATE VIRTUAL TABLE message_text USING fts5(folded, tokenize = 'trigram', detail = 'none')")
        _ = try transaction.execute("INSERT OR REPLACE INTO meta(name, value) VALUES('schema', ?)", [.integer(version)])
    }

    /// Every row of `chats`, the most recently indexed first: a chat is indexed again when
    /// it changes, so this is close to the order a listing shows, and sorting it costs
    /// little. Each column is read in place and checked; nothing else is built.
    static func entries(in transaction: borrowing SQLiteTransaction) throws(SQLiteError) -> [Entry] {
        var entries: [Entry] = []
        // Counting costs SQLite a walk of the table's pages, and saves the array's regrowth.
        entries.reserveCapacity(Int(try transaction.query("SELECT count(*) FROM chats").first?.integer(0) ?? 0))
        try transaction.forEachRow("SELECT id, title, engine, facts FROM chats ORDER BY rowid DESC") {
            row throws(SQLiteError) in
            let facts = try row.withBlob(3) { blob throws(SQLiteError) in try ChatIndexFacts(blob) }
            let summary = ChatSummary(
                id: try row.text(0), title: try row.text(1), created: facts.created, updated: facts.updated,
                messageCount: facts.messages, engine: try row.optionalText(2))
            entries.append(Entry(summary: summary, stamp: facts.stamp, hasText: facts.hasText, settled: facts.settled))
        }
        return entries
    }

    /// `entries` held against `stamps` (each chat file's stamp, by id): only an entry whose
    /// file still has the stamp it was indexed from is trusted, and only when it was settled
    /// when indexed (a file changed in the same tick of the clock as its read could
    /// otherwise keep its size, time and inode) and holds the text when `withText`.
    static func compare(_ entries: [Entry], with stamps: [String: FileStamp], withText: Bool) -> Comparison {
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
                comparison.stale.append((id, stamp, true))
                continue
            }
            comparison.trusted.append(entry.summary)
        }
        // Files the index has never seen: the stamps left over.
        if matched < stamps.count {
            let indexed = Set(entries.lazy.map(\.summary.id))
            for (id, stamp) in stamps where !indexed.contains(id) { comparison.stale.append((id, stamp, false)) }
        }
        return comparison
    }

    /// Forgets the chat `id`.
    static func remove(_ id: String, in transaction: borrowing SQLiteTransaction) throws(SQLiteError) {
        try removeText(of: id, in: transaction)
        _ = try transaction.execute("DELETE FROM chats WHERE id = ?", [.text(id)])
    }

    /// Indexes `chat` as read from a file of `stamp`, with its messages when `withText`.
    /// Messages indexed from a file of that very stamp are kept rather than indexed again.
    static func replace(
        _ chat: Chat, stamp: FileStamp, settled: Bool, withText: Bool, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        if let old = try indexed(chat.id, in: transaction), old.stamp == stamp, old.hasText {
            try upsert(chat, stamp: stamp, hasText: true, settled: settled, in: transaction)
            return
        }
        try removeText(of: chat.id, in: transaction)
        try upsert(chat, stamp: stamp, hasText: withText, settled: settled, in: transaction)
        if withText { try insert(chat.messages[...], of: chat.id, from: 0, in: transaction) }
    }

    /// The stamp, message count and text flag of the chat `id` as indexed.
    private static func indexed(
        _ id: String, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) -> (stamp: FileStamp, messages: Int, hasText: Bool)? {
        guard let row = try transaction.query("SELECT facts FROM chats WHERE id = ?", [.text(id)]).first else {
            return nil
        }
        let facts = try ChatIndexFacts(try row.blob(0))
        return (facts.stamp, facts.messages, facts.hasText)
    }

    /// Indexes `chat`, just written by a turn to a file now of `stamp`: only its last two
    /// messages are added when the index holds the version of stamp `before` with its
    /// text; otherwise the whole chat is indexed again.
    static func record(
        _ chat: Chat, stamp: FileStamp, before: FileStamp?, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        // Just written: never settled, so the next listing reads it once more.
        if let old = try indexed(chat.id, in: transaction), let before, old.stamp == before, old.hasText,
            chat.messages.count >= 2, old.messages == chat.messages.count - 2
        {
            try upsert(chat, stamp: stamp, hasText: true, settled: false, in: transaction)
            let first = chat.messages.count - 2
            try insert(chat.messages[first...], of: chat.id, from: first, in: transaction)
            return
        }
        try removeText(of: chat.id, in: transaction)
        try upsert(chat, stamp: stamp, hasText: true, settled: false, in: transaction)
        try insert(chat.messages[...], of: chat.id, from: 0, in: transaction)
    }

    /// The candidates for a folded query: the messages whose folded text matches
    /// ``pattern(_:)`` — through the trigram index for three characters or more, by a scan
    /// of the folded text (never of the chats) for fewer.
    static let searchSQL =
        "SELECT m.chat, m.position, m.role, m.time, m.text FROM message_text f JOIN messages m ON m.id = f.rowid "
        + "WHERE f.folded GLOB ?"

    /// The parameter of ``searchSQL``: `folded` anywhere in the text, as a GLOB pattern
    /// (case-sensitive, as the folded text is; `*`, `?` and `[` taken literally).
    static func pattern(_ folded: String) -> String {
        var pattern = "*"
        for character in folded {
            switch character {
            case "*", "?", "[": pattern += "[\(character)]"
            default: pattern.append(character)
            }
        }
        return pattern + "*"
    }

    /// `text` as the index keeps it: case and accents folded away.
    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// A row of ``searchSQL(for:)``.
    static func message(_ row: SQLiteRow) throws(SQLiteError) -> Hit {
        let role = ChatMessage.Role(rawValue: try row.text(2)) ?? .user
        return Hit(
            chat: try row.text(0), index: Int(try row.integer(1)),
            message: ChatMessage(role: role, text: try row.text(4), time: try date(row, 3)))
    }

    // MARK: - Private

    private static func upsert(
        _ chat: Chat, stamp: FileStamp, hasText: Bool, settled: Bool, in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        let facts = ChatIndexFacts(
            stamp: stamp, created: chat.created, updated: chat.updated, messages: chat.messages.count,
            hasText: hasText, settled: settled)
        _ = try transaction.execute(
            "INSERT OR REPLACE INTO chats(id, title, engine, facts) VALUES(?, ?, ?, ?)",
            [.text(chat.id), .text(chat.title), chat.engine.map { .text($0) } ?? .null, .blob(facts.blob)])
    }

    private static func insert(
        _ messages: ArraySlice<ChatMessage>, of id: String, from first: Int,
        in transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) {
        for (offset, message) in messages.enumerated() {
            _ = try transaction.execute(
                "INSERT INTO messages(chat, position, role, time, text) VALUES(?, ?, ?, ?, ?)",
                [
                    .text(id), .integer(Int64(first + offset)), .text(message.role.rawValue),
                    .real(message.time.timeIntervalSince1970), .text(message.text),
                ])
            _ = try transaction.execute(
                "INSERT INTO message_text(rowid, folded) VALUES(?, ?)",
                [.integer(transaction.lastInsertedRowID), .text(folded(message.text))])
        }
    }

    private static func removeText(of id: String, in transaction: borrowing SQLiteTransaction) throws(SQLiteError) {
        _ = try transaction.execute(
            "DELETE FROM message_text WHERE rowid IN (SELECT id FROM messages WHERE chat = ?)", [.text(id)])
        _ = try transaction.execute("DELETE FROM messages WHERE chat = ?", [.text(id)])
    }

    private static func date(_ row: SQLiteRow, _ index: Int) throws(SQLiteError) -> Date {
        switch try row.value(index) {
        case .real(let seconds): return Date(timeIntervalSince1970: seconds)
        case .integer(let seconds): return Date(timeIntervalSince1970: Double(seconds))
        default:
            throw SQLiteError(operation: "read index", path: nil, extendedCode: 1, message: "a time is not a number")
        }
    }
}
