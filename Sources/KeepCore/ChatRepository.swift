import Foundation
import KeepPorts

/// The chats and their drafts in a ``/KeepPorts/StoragePort``: the one place that knows how a chat is
/// written (`ChatFormat`: format 3's lines, and the older formats it still reads), so a
/// change of store changes no format.
///
/// A chat lives at `chats`/`<id>`; the question of a turn whose answer never came lives at
/// `drafts`/`<id>` as plain text. A change to a stored chat (a turn, a title, a system
/// prompt) is one append to its file when the file is in format 3, however long the chat:
/// ``record(_:in:)``, ``setTitle(_:in:)``, ``setSystem(_:in:)``. A chat in an older format,
/// or not stored yet, is written whole by its next change, in format 3, once.
///
/// Every method throws ``ChatError/storage(_:)`` when the store cannot be reached, and
/// nothing else unless it says so. Listing never fails on a chat it cannot read: that chat
/// is skipped by ``list()`` and reported by ``listUnreadable()``.
public struct ChatRepository: Sendable {
    /// The chat format this build writes, and the newest it reads.
    public static let formatVersion = ChatFormat.version

    private let storage: any StoragePort
    private let now: @Sendable () -> Date

    /// Chats in `storage`; `now` is the clock new ids are made from.
    public init(storage: any StoragePort, now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.now = now
    }

    // MARK: - Listing

    /// Every chat, read or reported: one pass over the `chats` namespace.
    ///
    /// A chat that vanishes between the listing and its read is left out; one whose file is
    /// damaged (bytes that are not text, a symbolic link, a directory, a pipe, a file keep may
    /// not read: `KeepPorts.StorageError.isOneFilesProblem`) or whose contents are not a
    /// chat goes into ``ChatListing/unreadable``, and the others are read all the same. A
    /// store that cannot be reached (the listing refused, `EIO`) fails the whole scan with
    /// ``ChatError/storage(_:)``: the caller shows that where the list would be.
    public func scan() async throws(ChatError) -> ChatListing {
        let ids = try await withStorage { () async throws(StorageError) in try await storage.listIds(.chats) }
        // Reading and decoding every chat is nearly all of a listing's time: the ids are read
        // and decoded in one slice per core, side by side.
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, ids.count / 64))
        let parts = await withTaskGroup(of: Result<([Chat], [UnreadableChat]), ChatError>.self) { group in
            for slice in 0..<slices {
                let part = ids[(ids.count * slice / slices)..<(ids.count * (slice + 1) / slices)]
                group.addTask { await scan(part) }
            }
            var parts: [Result<([Chat], [UnreadableChat]), ChatError>] = []
            for await part in group { parts.append(part) }
            return parts
        }
        var chats: [Chat] = []
        var unreadable: [UnreadableChat] = []
        for part in parts {
            let (read, failed) = try part.get()
            chats += read
            unreadable += failed
        }
        chats.sort { ($0.updated, $0.created, $0.id) > ($1.updated, $1.created, $1.id) }
        unreadable.sort { $0.id < $1.id }
        return ChatListing(chats: chats, unreadable: unreadable)
    }

    /// The chats of `ids` that read, and the ones that do not; a store that cannot be
    /// reached fails the whole slice.
    private func scan(_ ids: ArraySlice<String>) async -> Result<([Chat], [UnreadableChat]), ChatError> {
        var chats: [Chat] = []
        var unreadable: [UnreadableChat] = []
        for id in ids {
            do throws(ChatError) {
                if let stored = try await decode(id) { chats.append(stored.chat) }
            } catch {
                if error.code == .unreadable, let chat = error.chat {
                    unreadable.append(chat)
                } else if let failure = error.storage, failure.code == .invalidId {
                    // A name the store lists but cannot hold is this chat's problem, not the list's.
                    unreadable.append(UnreadableChat(id: id, reason: failure.description))
                } else {
                    return .failure(error)
                }
            }
        }
        return .success((chats, unreadable))
    }

    /// The chats that can be read, most recently updated first.
    public func list() async throws(ChatError) -> [Chat] {
        try await scan().chats
    }

    /// The chats that cannot be read, with the reason for each, by id.
    public func listUnreadable() async throws(ChatError) -> [UnreadableChat] {
        try await scan().unreadable
    }

    // MARK: - One chat

    /// The chat `id`, or `nil` when there is none; throws ``ChatError/unreadable(_:)`` when
    /// it is stored but cannot be read.
    public func read(_ id: String) async throws(ChatError) -> Chat? {
        try await decode(id)?.chat
    }

    /// The chat `id` without its messages, and those of its messages that `matches`, with
    /// their indexes in the chat; `nil` when there is none or when `admits` turns its stored
    /// text down (`admits` sees the text as the store gives it, opened when sealed, before
    /// any of it is decoded, so a chat it turns down costs its read alone). In format 3 only the lines `lineAdmits` lets
    /// through (it sees each line after the head, as stored) are decoded and their messages
    /// offered to `matches`; the others are only checked, so a search of a long chat that
    /// passes `admits` costs one more pass over its text, not its decoding whole. A line
    /// `lineAdmits` turns down must hold no message `matches` would take. Throws as
    /// ``read(_:)`` does, a damaged line anywhere included.
    package func messages(
        of id: String, admitting admits: (UnsafeBufferPointer<UInt8>) -> Bool,
        lineAdmitting lineAdmits: (UnsafeBufferPointer<UInt8>) -> Bool, where matches: (ChatMessage) -> Bool
    ) async throws(ChatError) -> (chat: Chat, messages: [(index: Int, message: ChatMessage)])? {
        guard let stored = try await bytes(of: id) else { return nil }
        return try stored.withUnsafeBufferPointer {
            bytes throws(ChatError) -> (chat: Chat, messages: [(index: Int, message: ChatMessage)])? in
            guard admits(bytes) else { return nil }
            guard ChatLines.headVersion(of: bytes) == ChatLines.version else {
                var chat = try decode(bytes, id: id).chat
                let messages = chat.messages.enumerated().filter { matches($0.element) }
                chat.messages = []
                return (chat, messages.map { (index: $0.offset, message: $0.element) })
            }
            var found: [(index: Int, message: ChatMessage)] = []
            let chat: Chat
            do throws(ChatFormat.Unreadable) {
                chat = try ChatLines.chat(from: bytes, admitting: lineAdmits) { index, message in
                    if matches(message) { found.append((index, message)) }
                }.chat
            } catch {
                throw .unreadable(UnreadableChat(id: id, reason: error.reason))
            }
            guard chat.id == id else { throw .unreadable(UnreadableChat(id: id, reason: ChatFormat.otherId)) }
            return (chat, found)
        }
    }

    /// The chat `id` with the format its file is in, which is how its next change is
    /// written; `nil` when there is none. Throws as ``read(_:)`` does.
    public func stored(_ id: String) async throws(ChatError) -> StoredChat? {
        try await decode(id)
    }

    /// The chat `id` a message at a time, for showing a chat of any length: `head` hears the
    /// chat as its whole file leaves it (title, time, engine) with its messages left out, and
    /// how many messages it has; then `message` hears each of them in order. Only the stored
    /// text is held meanwhile, never the chat's messages together: a format 3 file is read
    /// through twice, once checked whole for the head (no message's text made) and once for
    /// the messages, the first heard as soon as its line is decoded. Answers `false`, calling
    /// neither, when there is no chat `id`; throws as ``read(_:)`` does, before `head` hears
    /// anything.
    public func stream(
        _ id: String, head: (Chat, _ messages: Int) -> Void, message: (ChatMessage) -> Void
    ) async throws(ChatError) -> Bool {
        guard let stored = try await bytes(of: id) else { return false }
        try stored.withUnsafeBufferPointer { bytes throws(ChatError) in
            guard ChatLines.headVersion(of: bytes) == ChatLines.version else {
                // An older format is one object: read whole, as it always was.
                var chat = try decode(bytes, id: id).chat
                let messages = chat.messages
                chat.messages = []
                head(chat, messages.count)
                messages.forEach(message)
                return
            }
            let summary: (chat: Chat, messages: Int)
            do throws(ChatFormat.Unreadable) {
                summary = try ChatLines.chat(from: bytes, admitting: { _ in false }, messages: { _, _ in })
            } catch {
                throw .unreadable(UnreadableChat(id: id, reason: error.reason))
            }
            guard summary.chat.id == id else {
                throw .unreadable(UnreadableChat(id: id, reason: ChatFormat.otherId))
            }
            head(summary.chat, summary.messages)
            // The same bytes read the same way again: they cannot fail where they did not.
            _ = try? ChatLines.chat(from: bytes) { _, each in message(each) }
        }
        return true
    }

    /// The chat stored under `id`, or `nil` when there is none (it may have vanished since a
    /// listing). Bytes that are not text, or text that is not a chat, are this chat's problem
    /// (``ChatError/unreadable(_:)``); anything else is the store's (``ChatError/storage(_:)``).
    private func decode(_ id: String) async throws(ChatError) -> StoredChat? {
        guard let stored = try await bytes(of: id) else { return nil }
        return try stored.withUnsafeBufferPointer { bytes throws(ChatError) in try decode(bytes, id: id) }
    }

    /// The stored UTF-8 of the chat `id` (no string made of it: it is parsed as bytes), or
    /// `nil` when there is none; errors as ``decode(_:)``'s.
    private func bytes(of id: String) async throws(ChatError) -> [UInt8]? {
        do throws(StorageError) {
            return try await storage.readUTF8(key(id))
        } catch let error where Self.isDamage(error) {
            // Bad bytes, a symbolic link, a directory, a pipe, a file keep may not read: this
            // chat's problem, never the namespace's.
            throw .unreadable(UnreadableChat(id: id, reason: error.description))
        } catch {
            throw .storage(error)
        }
    }

    /// The chat `bytes` (its stored UTF-8) hold, stored under `id`.
    private func decode(_ bytes: UnsafeBufferPointer<UInt8>, id: String) throws(ChatError) -> StoredChat {
        do throws(ChatFormat.Unreadable) {
            return try ChatFormat.stored(from: bytes, id: id)
        } catch {
            throw .unreadable(UnreadableChat(id: id, reason: error.reason))
        }
    }

    /// Stores `chat` whole, in one write (format 3), replacing any earlier version of it.
    public func save(_ chat: Chat) async throws(ChatError) {
        let text = ChatFormat.text(of: chat)
        try await withStorage { () async throws(StorageError) in try await storage.write(key(chat.id), text) }
    }

    // MARK: - Changes of a stored chat

    /// Records `turn` at the end of `stored`'s chat and answers the chat with it.
    ///
    /// In format 3 (``StoredChat/isAppendable``) the turn is one append of one line, the
    /// question and the answer together, whatever the chat's length; when the chat is gone
    /// meanwhile nothing is written and it throws ``ChatError/removed(_:)``: a removed chat
    /// is never brought back by a late turn. A chat in an older format, or one not stored yet,
    /// is written whole with the turn, in format 3 (one atomic write): a new chat's first turn
    /// is its head and the turn; an older chat is converted, once. The caller holds the store's
    /// lock, so `stored` is still what the store holds.
    @discardableResult
    public func record(_ turn: ChatTurn, in stored: StoredChat) async throws(ChatError) -> StoredChat {
        try await record(.turn(turn), in: stored)
    }

    /// Sets the title of `stored`'s chat (`""` for none), as ``record(_:in:)`` records a turn:
    /// one append in format 3. The chat's time is left as it was.
    @discardableResult
    public func setTitle(_ title: String, in stored: StoredChat) async throws(ChatError) -> StoredChat {
        try await record(.title(title, time: ChatFormat.normalized(now())), in: stored)
    }

    /// Sets the system prompt of `stored`'s chat (`nil`: the setting applies again), as
    /// ``record(_:in:)`` records a turn. The chat's time is left as it was.
    @discardableResult
    public func setSystem(_ system: String?, in stored: StoredChat) async throws(ChatError) -> StoredChat {
        try await record(.system(system, time: ChatFormat.normalized(now())), in: stored)
    }

    /// `event` recorded in `stored`'s chat: one line appended, or the chat written whole.
    private func record(_ event: ChatEvent, in stored: StoredChat) async throws(ChatError) -> StoredChat {
        var chat = stored.chat
        event.apply(to: &chat)
        let key = key(chat.id)
        let line = ChatLines.line(event)
        if stored.isAppendable {
            let appended = try await withStorage { () async throws(StorageError) in
                try await storage.append(key) { _ in line }
            }
            guard appended else { throw .removed(chat.id) }
        } else {
            let text = ChatLines.text(of: stored.chat) + line + "\n"
            try await withStorage { () async throws(StorageError) in try await storage.write(key, text) }
        }
        return StoredChat(chat, format: ChatFormat.version)
    }

    /// Removes the chat `id` and its draft; answers whether there was a chat to remove.
    /// An unreadable chat (or draft) is removed too: removing is the user's word.
    @discardableResult
    public func delete(_ id: String) async throws(ChatError) -> Bool {
        try await withStorage { () async throws(StorageError) in
            let existed = try await exists(key(id))
            try await storage.remove(key(id))
            try await storage.remove(draftKey(id))
            return existed
        }
    }

    /// A new chat id no stored chat or draft has: its creation time in UTC, then six
    /// random hex digits (`20250614-153012-3fa9c1`), so ids sort by age and every
    /// character is stored literally by the file store.
    public func newId() async throws(ChatError) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(
            in: TimeZone(identifier: "UTC") ?? .gmt, from: now())
        let stamp = String(
            format: "%04d%02d%02d-%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
        return try await withStorage { () async throws(StorageError) in
            // Sixteen million suffixes a second: a clash is rare, a hundred in a row a broken store.
            for _ in 0..<100 {
                let id = stamp + "-" + String(format: "%06x", UInt32.random(in: 0..<0x100_0000))
                if try await !exists(key(id)), try await !exists(draftKey(id)) {
                    return id
                }
            }
            throw StorageError(code: .io, operation: "new id", path: "chats", reason: "every id tried is taken")
        }
    }

    // MARK: - Search

    /// Every message containing `text` (ignoring case and accents), newest chat first, in
    /// message order within a chat. Chats that cannot be read are not searched. Throws
    /// ``ChatError/emptySearch`` for an empty or blank `text`.
    public func search(_ text: String) async throws(ChatError) -> [ChatMatch] {
        guard !text.allSatisfy(\.isWhitespace) else { throw .emptySearch }
        var matches: [ChatMatch] = []
        for chat in try await list() {
            for (index, message) in chat.messages.enumerated()
            where message.text.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil {
                matches.append(ChatMatch(chatId: chat.id, title: chat.title, index: index, message: message))
            }
        }
        return matches
    }

    // MARK: - Drafts

    /// The question of the chat `id` whose answer never came, or `nil`. Throws
    /// ``ChatError/unreadableDraft(_:)`` when a draft is stored but cannot be read: that is
    /// the draft's problem, and never hides its chat.
    public func draft(for id: String) async throws(ChatError) -> String? {
        do throws(StorageError) {
            return try await storage.read(draftKey(id))
        } catch let error where Self.isDamage(error) {
            throw .unreadableDraft(UnreadableChat(id: id, reason: error.description))
        } catch {
            throw .storage(error)
        }
    }

    /// Whether the chat `id` has a draft, readable or not.
    public func hasDraft(for id: String) async throws(ChatError) -> Bool {
        try await withStorage { () async throws(StorageError) in try await exists(draftKey(id)) }
    }

    /// Keeps `question` as the chat `id`'s draft until its turn is recorded.
    ///
    /// A draft already there that cannot be read is never written over (nor, later,
    /// removed) without the user's word: ``ChatError/unreadableDraft(_:)``, and nothing is
    /// written. A readable one is the user's earlier question, asked again by this one.
    public func saveDraft(_ question: String, for id: String) async throws(ChatError) {
        _ = try await draft(for: id)
        try await withStorage { () async throws(StorageError) in try await storage.write(draftKey(id), question) }
    }

    /// Forgets the chat `id`'s draft; forgetting an absent draft succeeds.
    public func clearDraft(for id: String) async throws(ChatError) {
        try await withStorage { () async throws(StorageError) in try await storage.remove(draftKey(id)) }
    }

    /// The ids of chats that have a draft, including new chats whose first answer never came.
    public func draftIds() async throws(ChatError) -> [String] {
        try await withStorage { () async throws(StorageError) in try await storage.listIds(.drafts).sorted() }
    }

    // MARK: - Ids people type

    /// The id of the chat `typed` names: `typed` itself when a chat or a draft has exactly
    /// that id, else the one id of a chat or draft that starts with it; `nil` when none
    /// does. Throws ``ChatError/ambiguousId(_:candidates:)`` (the candidates sorted) when
    /// more than one does, and never guesses among them.
    public func resolve(_ typed: String) async throws(ChatError) -> String? {
        guard !typed.isEmpty else { return nil }
        let ids = try await withStorage { () async throws(StorageError) -> Set<String> in
            if try await exists(typed) { return [typed] }
            return Set(try await storage.listIds(.chats)).union(try await storage.listIds(.drafts))
        }
        if ids == [typed] { return typed }
        let matching = ids.filter { $0.hasPrefix(typed) }.sorted()
        guard matching.count <= 1 else { throw .ambiguousId(typed, candidates: matching) }
        return matching.first
    }

    /// Whether a chat or a draft is stored under `id`.
    private func exists(_ id: String) async throws(StorageError) -> Bool {
        if try await storage.read(key(id)) != nil { return true }
        return try await storage.read(draftKey(id)) != nil
    }

    // MARK: - Export and import

    /// `chat` as keep's own JSON for export: one object of chat format 2, which
    /// ``importChat(_:)`` reads back, and so does every keep since format 2 (format 3's lines
    /// are how a chat is stored, not how it is handed on).
    public func exportText(_ chat: Chat) throws(ChatError) -> String {
        do {
            return try ChatObjectFormat.text(of: chat)
        } catch {
            throw .notAChat("it could not be encoded as JSON")
        }
    }

    /// Stores the chat that `text` (keep's JSON, any version this build reads) holds, as a
    /// new chat in format 3 (an export's object, or a chat file's lines): under its own id when that id has keep's form (``isOwnIdForm(_:)``) and no
    /// chat or draft has it, else under a new one (``ImportedChat/newId`` says why). Never
    /// writes over a stored chat, and never stores an id of another form: an id from a
    /// file is text from outside, and may hold anything (escapes, bidirectional controls).
    /// Answers the chat as stored.
    ///
    /// Throws ``ChatError/notAChat(_:)`` when `text` is not a chat this build reads, with the
    /// reason (never quoting the text). The caller holds the store's lock, so the id it
    /// checked is still free when it writes.
    public func importChat(_ text: String) async throws(ChatError) -> ImportedChat {
        var chat: Chat
        do {
            chat = try ChatFormat.stored(from: text).chat
        } catch {
            throw .notAChat(error.reason)
        }
        let idInFile = chat.id
        let why: ImportedChat.NewId? = try await withStorage { () async throws(StorageError) in
            guard Self.isOwnIdForm(chat.id) else { return .notKeepsForm }
            do throws(StorageError) {
                return try await exists(chat.id) ? .taken : nil
            } catch let error where error.code == .invalidId || error.code == .corrupt {
                // A stored chat the store cannot read: not free.
                return .taken
            }
        }
        if why != nil {
            chat = Chat(
                id: try await newId(), title: chat.title, messages: chat.messages, created: chat.created,
                updated: chat.updated, engine: chat.engine, system: chat.system)
        }
        try await save(chat)
        return ImportedChat(chat: chat, idInFile: idInFile, newId: why)
    }

    /// Whether `id` has the form of the ids ``newId()`` makes: eight digits, a dash, six
    /// digits, a dash and six lowercase hexadecimal digits (`20250614-153012-3fa9c1`).
    public static func isOwnIdForm(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == 22, bytes[8] == UInt8(ascii: "-"), bytes[15] == UInt8(ascii: "-") else { return false }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let isHex = { (byte: UInt8) in isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) }
        return bytes[0..<8].allSatisfy(isDigit) && bytes[9..<15].allSatisfy(isDigit) && bytes[16...].allSatisfy(isHex)
    }

    // MARK: - Keys

    /// Whether `error` is a stored file's own damage: one file's problem, for an id the
    /// store can hold (a refused id is the caller's mistake, not damage on disk).
    private static func isDamage(_ error: StorageError) -> Bool {
        error.isOneFilesProblem && error.code != .invalidId
    }

    /// Whether anything is stored at `key`: a value, or a file that cannot be read as one.
    private func exists(_ key: StorageKey) async throws(StorageError) -> Bool {
        do throws(StorageError) {
            return try await storage.read(key) != nil
        } catch let error where Self.isDamage(error) {
            return true
        }
    }

    private func key(_ id: String) -> StorageKey { StorageKey(.chats, id) }
    private func draftKey(_ id: String) -> StorageKey { StorageKey(.drafts, id) }

    /// Runs `body`, turning a storage failure into ``ChatError/storage(_:)``.
    private func withStorage<T>(_ body: () async throws(StorageError) -> T) async throws(ChatError) -> T {
        do {
            return try await body()
        } catch {
            throw .storage(error)
        }
    }
}
