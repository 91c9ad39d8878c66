import Foundation
import KeepChatIndex
import KeepCore
import KeepEngines
import KeepFileStore
import KeepPorts

/// Asks one question in a chat and records the turn, safely while other `keep` processes do
/// the same to the same store.
///
/// A turn has two steps. ``begin(_:in:)`` keeps the question as the chat's draft, so a
/// crash, a kill or a failed answer leaves it to be offered again; for a new chat it also
/// claims the id, under the ``StoreLock``, so ids are unique across processes (the draft is
/// the claim). ``answer(_:in:options:leftOut:receive:)`` asks the engine with the lock *not* held,
/// then takes the lock, appends the question and the answer in one write (a new chat's
/// first turn is read afresh and written whole), and clears the draft: two processes
/// answering in the same chat each add their turn, and neither loses the other's. A chat
/// removed meanwhile (neither the chat nor its draft is there any more) stays removed: the
/// turn is not kept. The chat answered last is
/// found in the chat index (``chatToContinue()``), so a turn keeps no hint of its own and
/// flushes nothing for it.
///
/// A turn's flushes, each for what a power cut would lose without it: the draft's file and
/// directory (the question typed), the chat's file and directory (the recorded turn), and
/// the directory after the draft is cleared (else an answered question comes back as a
/// draft). The chat index's update flushes nothing: it is a cache.
package struct TurnRunner: Sendable {
    /// The chats the turns are recorded in.
    package let chats: ChatRepository
    /// The engine that answers.
    package let engine: any ChatEngine
    private let lock: StoreLock
    private let now: @Sendable () -> Date
    /// The chat index beside the store, told of each recorded turn; `nil` for none.
    private let index: ChatIndex?

    /// Turns in `storage`; with `indexRoot` (the data root, where the index file lives),
    /// each recorded turn also updates the ``ChatIndex`` there, which stamps and reads the
    /// chats through `storage` too, under the lock, sealing what it holds as
    /// `indexing` says (on the chats' key when they are sealed).
    package init(
        storage: any StampedStorage, lock: StoreLock, engine: any ChatEngine, indexRoot: String? = nil,
        indexing: any ChatIndexSealing = PlainChatIndexing(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        chats = ChatRepository(storage: storage, now: now)
        index = indexRoot.map { ChatIndex(root: $0, storage: storage, sealing: indexing) }
        self.lock = lock
        self.engine = engine
        self.now = now
    }

    /// Keeps `question` as the draft of the chat `id`, or of a new chat when `id` is
    /// `nil`, and answers the session on it.
    ///
    /// A new chat whose first answer never came is its draft alone; the same question asked
    /// again in a new chat goes to that chat (``unansweredNewChat(asking:)``), so failed
    /// first asks never pile up as new chats, one per try.
    ///
    /// Throws ``TurnError/noSuchChat(_:)`` when there is neither a chat nor a draft with
    /// that id; ``TurnError/chats(_:)`` (the chat is unreadable, or the store failed),
    /// ``TurnError/draftNotKept(_:chatId:)`` and ``TurnError/lock(_:)`` when nothing could
    /// be kept.
    package func begin(_ question: String, in id: String?) async throws(TurnError) -> ChatSession {
        guard let id else {
            let held = try await acquire()
            defer { held.release() }
            let waiting = try await chatsCall { () async throws(ChatError) -> ChatSession? in
                guard let waiting = try await unansweredNewChat(asking: question) else { return nil }
                return try await ChatSession.open(waiting, repository: chats, now: now)
            }
            if let waiting { return waiting }
            let session = try await chatsCall { () async throws(ChatError) in
                try await ChatSession.start(repository: chats, now: now)
            }
            try await keepDraft(question, in: session)
            return session
        }
        let opened = try await chatsCall { () async throws(ChatError) in
            try await ChatSession.open(id, repository: chats, now: now)
        }
        guard let session = opened else { throw .noSuchChat(id) }
        // The draft is written under the lock, as every other change to a chat is: `keep
        // chats seal` and `unseal` change the marker and rewrite each draft under it, so a
        // draft written between the two would be left in the old way of keeping it.
        let held = try await acquire()
        defer { held.release() }
        try await keepDraft(question, in: session)
        return session
    }

    /// Asks the engine `question` after the session's messages, passing each piece of the
    /// answer to `receive`, then records the turn and answers the chat as stored.
    ///
    /// `options` choose the model, temperature and length for this question, and the system
    /// prompt (``TurnOptions/systemPrompt(for:)``), sent ahead of the conversation. The
    /// answer is recorded with the model and server that gave it and the server's token
    /// count; a system prompt given for this turn becomes the chat's own in the same write.
    ///
    /// Once the task is cancelled (Ctrl-C), `receive` hears no more: a piece the engine had
    /// already read is not shown after the user stopped the answer.
    ///
    /// Throws ``TurnError/engine(_:chatId:)`` when no complete answer came (cancelled
    /// included) and ``TurnError/notRecorded(_:chatId:)`` when it could not be stored; in
    /// both cases the question stays as the chat's draft. Throws
    /// ``TurnError/chatRemoved(chatId:)``, writing nothing, when the chat and its draft were
    /// removed while the engine answered: a removed chat is never made again by a late turn
    /// (`receive` has had the whole answer by then, for the caller to show).
    ///
    /// A conversation that would pass the engine's context budget is sent without its oldest
    /// turns (``ContextBudget``; the chat keeps them all), and `leftOut` is told how many, before
    /// anything is sent; one that has no budget and passes the engine's
    /// ``ChatEngine/unbudgetedLimit`` is not sent (``TurnError/engine(_:chatId:)``, the
    /// question kept as the draft).
    package func answer(
        _ question: String, in session: ChatSession, options: TurnOptions = TurnOptions(),
        leftOut: @Sendable (Int) -> Void = { _ in }, receive: @escaping @Sendable (String) -> Void
    ) async throws(TurnError) -> Chat {
        let id = await session.id
        let chat = await session.chat
        let system = options.systemPrompt(for: chat).map { [ChatMessage(role: .system, text: $0, time: now())] }
        let asked = ChatMessage(role: .user, text: question, time: now(), attachments: options.attachments)
        let reply: EngineReply
        do {
            let reserve = options.engine.maxTokens ?? 0
            let estimate = ContextBudget.estimate(
                system: system ?? [], history: chat.messages, question: asked, reserve: reserve)
            let budget = await engine.contextBudget(model: options.engine.model, estimate: estimate)
            let fitted = try ContextBudget.fit(
                system: system ?? [], history: chat.messages, question: asked, budget: budget.tokens,
                reserve: reserve, unbudgetedLimit: engine.unbudgetedLimit)
            if fitted.leftOut > 0 { leftOut(fitted.leftOut) }
            reply = try await engine.answer(
                to: fitted.messages, options: options.engine,
                receive: { piece in if !Task.isCancelled { receive(piece) } })
        } catch {
            throw .engine(error, chatId: id)
        }
        return try await record(question, reply: reply, in: session, options: options)
    }

    /// Records `question` and `reply` as a turn of the session's chat, under the store lock,
    /// and tells the chat index; what ``answer(_:in:options:leftOut:receive:)`` does once the
    /// engine has answered, and all of a turn that holds the lock.
    ///
    /// What is done under the lock costs the turn, not the chat: a chat the session read in
    /// the current format gets the turn as one append (another process's turn since is
    /// kept, before this one), and a chat that is only a draft (a new chat) or in an older
    /// format is read afresh and written whole, once. A chat whose file went meanwhile
    /// (`keep chats rm`) is ``TurnError/chatRemoved(chatId:)``, writing nothing. The
    /// answer is the session's chat with the turn; the chat index, a cache, reads again at
    /// its next listing any chat another process added to meanwhile.
    package func record(
        _ question: String, reply: EngineReply, in session: ChatSession, options: TurnOptions = TurnOptions()
    ) async throws(TurnError) -> Chat {
        let id = await session.id
        let held: StoreLock.Held
        do {
            held = try await lock.acquire()
        } catch {
            throw .notRecorded(.storage(error), chatId: id)
        }
        defer { held.release() }
        // The file as the index may know it, before the turn replaces it.
        let before = await index?.stamp(of: id)
        let current: ChatSession
        if await session.appends {
            current = session
        } else {
            // Read afresh under the lock: the chat may have been written since (another
            // process's first turn), or removed. `open` answers a session for a chat, or for
            // a new chat's draft (this turn's own claim); neither there means `keep chats rm`
            // took both.
            let opened: ChatSession?
            do {
                opened = try await ChatSession.open(id, repository: chats, now: now)
            } catch {
                throw .notRecorded(error, chatId: id)
            }
            guard let opened else { throw .chatRemoved(chatId: id) }
            current = opened
        }
        do {
            _ = try await current.recordTurn(
                question: question, answer: reply.text, engine: engine.id, model: reply.model, server: reply.server,
                usage: reply.usage, system: options.system, serverName: reply.serverName,
                attachments: options.attachments, role: options.role)
        } catch {
            // The store's own answer to the same rule: the file went between the read and
            // the append.
            if error.code == .removed { throw .chatRemoved(chatId: id) }
            throw .notRecorded(error, chatId: id)
        }
        let chat = await current.chat
        // A cache: a crash before this line is caught by the stamps at the next listing.
        await index?.recorded(chat, before: before)
        return chat
    }

    /// The chat `-c` continues: the one answered most recently (the most recently updated),
    /// from the chat index when there is one, else from a scan, `nil` when there is none; and, when some chat
    /// cannot be read (so the chat answered last may be one of them), why this one is
    /// continued, naming those: a user is never moved to another chat unawares.
    package func chatToContinue() async throws(TurnError) -> (id: String, instead: String?)? {
        let listing = try await chatsCall { () async throws(ChatError) in
            if let index { return try await index.listing() }
            return ChatSummaryListing(try await chats.scan())
        }
        guard let recent = listing.chats.first?.id else { return nil }
        guard !listing.unreadable.isEmpty else { return (recent, nil) }
        let names = listing.unreadable.map { StorageError.quoted($0.id) }.joined(separator: ", ")
        return (
            recent,
            "\(listing.unreadable.count == 1 ? "chat" : "chats") \(names) cannot be read, and may be the one "
                + "answered last; continuing chat \(StorageError.quoted(recent)) instead"
        )
    }

    /// The id of a new chat that is only its draft, and whose draft is `question`: a first
    /// ask that failed, asked again. The newest, when several are (left by a build that
    /// piled them up). The caller holds the lock.
    private func unansweredNewChat(asking question: String) async throws(ChatError) -> String? {
        for id in try await chats.draftIds().sorted(by: >) {
            // An unreadable draft is its own problem: it is not this question.
            guard (try? await chats.draft(for: id)) == question else { continue }
            do {
                if try await chats.read(id) == nil { return id }
            } catch  where error.code == .unreadable {
                continue  // a chat is there, though it cannot be read: not a new chat
            }
        }
        return nil
    }

    private func acquire() async throws(TurnError) -> StoreLock.Held {
        do {
            return try await lock.acquire()
        } catch {
            throw .lock(error)
        }
    }

    /// Keeps `question` as the session's draft before it is asked.
    private func keepDraft(_ question: String, in session: ChatSession) async throws(TurnError) {
        do {
            try await session.begin(question: question)
        } catch {
            throw .draftNotKept(error, chatId: await session.id)
        }
    }

    private func chatsCall<T>(_ body: () async throws(ChatError) -> T) async throws(TurnError) -> T {
        do {
            return try await body()
        } catch {
            throw .chats(error)
        }
    }
}
