import Foundation
import KeepChatIndex
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import KeepTestSupport
import Synchronization
import Testing

@testable import KeepConversation
@testable import KeepEngines

@Suite("Turns across processes")
struct TurnRunnerTests {
    /// A runner on a fresh file store of its own, answering with `script`.
    private func runner(_ script: ScriptedEngine.Script, in directory: TemporaryDirectory) throws -> TurnRunner {
        TurnRunner(
            storage: try FileStore(root: directory.path), lock: StoreLock(root: directory.path),
            engine: ScriptedEngine(script: script), indexRoot: directory.path)
    }

    @Test("a turn is the question and its answer, written together; the draft is gone after it")
    func recordsATurn() async throws {
        let directory = try TemporaryDirectory()
        let runner = try runner(.answer(["an ", "answer"]), in: directory)
        let session = try await runner.begin("a question", in: nil)
        let id = await session.id
        #expect(try await runner.chats.draft(for: id) == "a question", "the question is kept while it is answered")
        #expect(try await runner.chats.read(id) == nil, "nothing of the chat is stored before the answer")

        let chat = try await runner.answer("a question", in: session) { _ in }
        #expect(chat.messages.map(\.text) == ["a question", "an answer"])
        #expect(try await runner.chats.read(id) == chat)
        #expect(try await runner.chats.draft(for: id) == nil)
        #expect(try await runner.chatToContinue()?.id == id)
    }

    @Test(
        "an answer that does not complete leaves the question as the draft and the chat as it was",
        arguments: [EngineError.cancelled, EngineError(.http, status: 500, "the server broke")])
    func failedAnswerKeepsTheDraft(error: EngineError) async throws {
        let directory = try TemporaryDirectory()
        let first = try runner(.answer(["one"]), in: directory)
        let session = try await first.begin("first", in: nil)
        let id = await session.id
        _ = try await first.answer("first", in: session) { _ in }

        let failing = try runner(.fail(error), in: directory)
        let next = try await failing.begin("second", in: id)
        await #expect(throws: TurnError.engine(error, chatId: id)) {
            try await failing.answer("second", in: next) { _ in }
        }
        #expect(try await failing.chats.read(id)?.messages.map(\.text) == ["first", "one"])
        #expect(try await failing.chats.draft(for: id) == "second")
    }

    /// An engine that reads one more piece after its task is cancelled, as a network
    /// engine does with what it had already received.
    private struct LateEngine: ChatEngine {
        let id = "late"
        let started: AsyncStream<Void>.Continuation
        let cancelled: AsyncStream<Void>

        func answer(
            to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
        ) async throws(EngineError) -> EngineReply {
            receive("first")
            started.yield()
            for await _ in cancelled { break }
            receive("second")
            throw .cancelled
        }
    }

    @Test("after Ctrl-C cancels an answer, no more of it is handed on to be shown; before, every piece is")
    func noPieceAfterCancel() async throws {
        let directory = try TemporaryDirectory()
        let (started, startedNow) = AsyncStream<Void>.makeStream()
        let (cancelled, cancelledNow) = AsyncStream<Void>.makeStream()
        let runner = TurnRunner(
            storage: try FileStore(root: directory.path), lock: StoreLock(root: directory.path),
            engine: LateEngine(started: startedNow, cancelled: cancelled))
        let session = try await runner.begin("a question", in: nil)
        let shown = Mutex<[String]>([])
        let answering = Task { () async throws(TurnError) -> Chat in
            try await runner.answer("a question", in: session) { piece in shown.withLock { $0.append(piece) } }
        }
        for await _ in started { break }
        #expect(shown.withLock { $0 } == ["first"], "a piece before the cancel is shown")
        answering.cancel()
        cancelledNow.yield()
        let result = await answering.result
        #expect(throws: TurnError.self) { try result.get() }
        #expect(shown.withLock { $0 } == ["first"], "the piece read after the cancel is not")
        #expect(try await runner.chats.draft(for: await session.id) == "a question")
    }

    @Test(
        "a new chat's question that an unanswered new chat already holds goes to that chat; another question, or a chat with turns, does not"
    )
    func failedNewChatIsReused() async throws {
        let directory = try TemporaryDirectory()
        let failing = try runner(.fail(EngineError(.http, status: 500, "down")), in: directory)
        let first = try await failing.begin("the same question", in: nil)
        let id = await first.id
        _ = try? await failing.answer("the same question", in: first) { _ in }
        #expect(try await failing.begin("the same question", in: nil).id == id, "asked again: the same chat")
        #expect(try await failing.chats.draftIds() == [id])

        let other = try await failing.begin("a different question", in: nil).id
        #expect(other != id, "a different question is a new chat of its own")

        // A chat with turns whose draft is that question is not a new chat: it is never taken.
        let answering = try runner(.answer(["yes"]), in: directory)
        let answered = try await answering.begin("asked", in: nil)
        _ = try await answering.answer("asked", in: answered) { _ in }
        let answeredId = await answered.id
        _ = try await failing.begin("the question of a chat with turns", in: answeredId)
        #expect(try await failing.begin("the question of a chat with turns", in: nil).id != answeredId)
    }

    @Test("asking in a chat that does not exist is refused, and creates nothing")
    func noSuchChat() async throws {
        let directory = try TemporaryDirectory()
        let runner = try runner(.answer(["x"]), in: directory)
        await #expect(throws: TurnError.noSuchChat("nope")) { try await runner.begin("q", in: "nope") }
        #expect(try await runner.chats.draftIds().isEmpty)
    }

    @Test("new chats begun at once get unique ids, each with its own draft")
    func uniqueIds() async throws {
        let directory = try TemporaryDirectory()
        // Separate runners, as separate processes have: they share only the disk.
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                let runner = try runner(.answer(["a"]), in: directory)
                group.addTask { try await runner.begin("question \(index)", in: nil).id }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(ids).count == 16)
        #expect(try await runner(.answer(["a"]), in: directory).chats.draftIds().count == 16)
    }

    @Test("two answers landing in one chat at once both keep their turn")
    func concurrentTurnsInOneChat() async throws {
        let directory = try TemporaryDirectory()
        let opening = try runner(.answer(["opened"]), in: directory)
        let first = try await opening.begin("open", in: nil)
        let id = await first.id
        _ = try await opening.answer("open", in: first) { _ in }

        // Both sessions read the chat before either answer lands: the stale-read race.
        let a = try runner(.answer(["answer a"]), in: directory)
        let b = try runner(.answer(["answer b"]), in: directory)
        let sessionA = try await a.begin("question a", in: id)
        let sessionB = try await b.begin("question b", in: id)
        async let answeredA = a.answer("question a", in: sessionA) { _ in }
        async let answeredB = b.answer("question b", in: sessionB) { _ in }
        _ = try await (answeredA, answeredB)

        let texts = try #require(try await a.chats.read(id)).messages.map(\.text)
        #expect(texts.count == 6)
        #expect(Array(texts.prefix(2)) == ["open", "opened"])
        #expect(Set(texts.dropFirst(2)) == ["question a", "answer a", "question b", "answer b"])
    }

    @Test(
        "a turn in a chat kept in the current format reads none of it under the lock: one append, at any length"
    )
    func turnUnderTheLockCostsTheTurn() async throws {
        let directory = try TemporaryDirectory()
        let store = CallRecording(try FileStore(root: directory.path))
        let runner = TurnRunner(
            storage: store, lock: StoreLock(root: directory.path), engine: ScriptedEngine(script: .answer(["a"])),
            indexRoot: directory.path)
        // A new chat: its first turn reads the chat afresh (there is none yet) and writes it.
        let first = try await runner.begin("first", in: nil)
        let id = await first.id
        store.reset()
        _ = try await runner.record("first", reply: EngineReply(text: "one"), in: first)
        #expect(store.chatReads > 0, "the scan sees a read of the chat: a new chat's first turn looks afresh")

        // A chat of 200 turns, read once by the session: recording reads no byte of it again.
        let long = try #require(try await ChatSession.open(id, repository: runner.chats))
        for index in 0..<200 {
            _ = try await runner.record("q\(index)", reply: EngineReply(text: "a\(index)"), in: long)
        }
        store.reset()
        let chat = try await runner.record("last", reply: EngineReply(text: "the end"), in: long)
        #expect(store.chatReads == 0, "no read of the chat under the lock")
        #expect(store.chatWrites == 0 && store.chatAppends == 1, "one append, no rewrite")
        #expect(chat.messages.suffix(2).map(\.text) == ["last", "the end"])
        #expect(try await runner.chats.read(id)?.messages.count == 2 * 202, "every turn is in the chat")
        // The index, told of each turn, lists the chat as it is.
        #expect(try await ChatIndex(root: directory.path, storage: store).listing().chats.first?.messageCount == 404)
    }

    @Test(
        "every change to a draft is made under the store lock, which seal and unseal hold for each value they rewrite"
    )
    func draftsUnderTheLock() async throws {
        let directory = try TemporaryDirectory()
        let lock = StoreLock(root: directory.path)
        let store = CallRecording(try FileStore(root: directory.path), lock: lock.path)
        let runner = TurnRunner(
            storage: store, lock: lock, engine: ScriptedEngine(script: .answer(["a"])), indexRoot: directory.path)
        let first = try await runner.begin("in a new chat", in: nil)
        _ = try await runner.answer("in a new chat", in: first) { _ in }
        let again = try await runner.begin("in that chat again", in: await first.id)
        _ = try await runner.answer("in that chat again", in: again) { _ in }
        #expect(store.draftChanges.count == 4, "each question kept as the draft, then cleared: \(store.draftChanges)")
        #expect(store.draftChanges.allSatisfy { $0 }, "under the lock: \(store.draftChanges)")
    }

    @Test("a turn whose chat was removed while it was answered is refused and writes nothing, with or without a read")
    func turnInRemovedChat() async throws {
        let directory = try TemporaryDirectory()
        let runner = try runner(.answer(["yes"]), in: directory)
        let session = try await runner.begin("asked", in: nil)
        _ = try await runner.answer("asked", in: session) { _ in }
        let id = await session.id
        let appending = try #require(try await ChatSession.open(id, repository: runner.chats))
        #expect(await appending.appends, "a chat in the current format is appended to")
        #expect(try await runner.chats.delete(id))
        await #expect(throws: TurnError.chatRemoved(chatId: id)) {
            try await runner.record("late", reply: EngineReply(text: "too late"), in: appending)
        }
        #expect(try await runner.chats.read(id) == nil, "a removed chat stays removed")
    }

    @Test("the most recent chat is the one answered last, and a removed one is never it")
    func mostRecentChat() async throws {
        let directory = try TemporaryDirectory()
        let runner = try runner(.answer(["a"]), in: directory)
        #expect(try await runner.chatToContinue()?.id == nil)
        let older = try await runner.begin("older", in: nil)
        _ = try await runner.answer("older", in: older) { _ in }
        let newer = try await runner.begin("newer", in: nil)
        _ = try await runner.answer("newer", in: newer) { _ in }
        _ = try await runner.answer("again", in: try await runner.begin("again", in: await older.id)) { _ in }
        #expect(try await runner.chatToContinue()?.id == (await older.id))

        try await runner.chats.delete(await older.id)
        #expect(try await runner.chatToContinue()?.id == (await newer.id), "a chat that is gone is skipped")
    }
}

/// A store that counts the calls on the chats' values, over the file store, and notes for
/// each change to a draft whether the store lock at `lock` was held (another description of
/// the lock file cannot take it then).
private final class CallRecording: StampedStorage {
    private let inner: FileStore
    private let lock: String?
    private let counts = Mutex((reads: 0, writes: 0, appends: 0, drafts: [Bool]()))

    init(_ inner: FileStore, lock: String? = nil) {
        self.inner = inner
        self.lock = lock
    }

    var chatReads: Int { counts.withLock { $0.reads } }
    var chatWrites: Int { counts.withLock { $0.writes } }
    var chatAppends: Int { counts.withLock { $0.appends } }
    /// For each write or removal of a draft, whether the lock was held.
    var draftChanges: [Bool] { counts.withLock { $0.drafts } }
    func reset() { counts.withLock { $0 = (0, 0, 0, []) } }

    private func noteDraftChange(_ key: StorageKey) {
        guard key.namespace == .drafts, let lock else { return }
        let descriptor = open(lock, O_RDWR | O_CLOEXEC)
        defer { if descriptor >= 0 { close(descriptor) } }
        let held = descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
        counts.withLock { $0.drafts.append(held) }
    }

    func read(_ key: StorageKey) async throws(StorageError) -> String? {
        if key.namespace == .chats { counts.withLock { $0.reads += 1 } }
        return try await inner.read(key)
    }
    func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        if key.namespace == .chats { counts.withLock { $0.writes += 1 } }
        noteDraftChange(key)
        try await inner.write(key, value)
    }
    func append(_ key: StorageKey, _ line: @Sendable (Int) -> String) async throws(StorageError) -> Bool {
        if key.namespace == .chats { counts.withLock { $0.appends += 1 } }
        return try await inner.append(key, line)
    }
    func remove(_ key: StorageKey) async throws(StorageError) {
        noteDraftChange(key)
        try await inner.remove(key)
    }
    func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] { try await inner.listIds(namespace) }
    func clear(_ namespace: Namespace) async throws(StorageError) { try await inner.clear(namespace) }
    func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        try await inner.stamps(namespace)
    }
    func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? { try await inner.stamp(key) }
}
