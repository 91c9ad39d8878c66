import Foundation
import KeepConformance
import KeepCore
import KeepEngines
import KeepFileStore
import KeepPorts
import Synchronization
import Testing

@testable import KeepConversation

/// A question asked in a huge chat: trimmed to its newest turns with a budget, refused in
/// one line without one; never the whole history sent.
@Suite("A turn in a huge chat")
struct HugeChatTurnTests {
    /// An engine with a budget (or none) and a bound for requests without one, that records
    /// what it was asked.
    private final class BoundedEngine: ChatEngine {
        let id = "bounded"
        let budget: Int?
        let unbudgetedLimit: Int?
        let asked = Mutex<[[ChatMessage]]>([])

        init(budget: Int?, unbudgetedLimit: Int?) {
            self.budget = budget
            self.unbudgetedLimit = unbudgetedLimit
        }

        func contextBudget(model: String?, estimate: Int) async -> ContextBudget.Limit {
            ContextBudget.Limit(tokens: budget, source: .setting)
        }

        func answer(
            to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
        ) async throws(EngineError) -> EngineReply {
            asked.withLock { $0.append(conversation) }
            return EngineReply(text: "fine")
        }
    }

    /// A chat of `turns` turns (a question and a 2,000-byte answer each, about 500 tokens),
    /// written once as a whole: about 2 MB at 1,000 turns, big enough to pass the small
    /// bounds below and quick to make.
    private func hugeChat(turns: Int, in directory: TemporaryDirectory) async throws -> (String, any StampedStorage) {
        let storage = try FileStore(root: directory.path)
        let chats = ChatRepository(storage: storage)
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        let answer = String(repeating: "an answer of some length. ", count: 77)
        let messages = (0..<turns).flatMap {
            [
                ChatMessage(role: .user, text: "question \($0)", time: time),
                ChatMessage(role: .assistant, text: answer, time: time),
            ]
        }
        let id = "20240101-000000-abcdef"
        try await chats.save(Chat(id: id, title: "huge", messages: messages, created: time))
        return (id, storage)
    }

    private func ask(
        _ engine: BoundedEngine, in id: String, storage: any StampedStorage, root: String
    ) async throws(TurnError) -> (Chat, Int) {
        let runner = TurnRunner(storage: storage, lock: StoreLock(root: root), engine: engine)
        let session = try await runner.begin("and now?", in: id)
        let leftOut = Mutex(0)
        let chat = try await runner.answer(
            "and now?", in: session, options: TurnOptions(system: "stay brief"),
            leftOut: { count in leftOut.withLock { $0 = count } }, receive: { _ in })
        return (chat, leftOut.withLock { $0 })
    }

    @Test("with a budget, a huge chat is sent as its newest turns, the system prompt first, the rest kept")
    func trimmedWithABudget() async throws {
        let directory = try TemporaryDirectory()
        let (id, storage) = try await hugeChat(turns: 1_000, in: directory)
        let engine = BoundedEngine(budget: 4_000, unbudgetedLimit: 10_000)
        let (chat, leftOut) = try await ask(engine, in: id, storage: storage, root: directory.path)
        let sent = try #require(engine.asked.withLock { $0.first })
        #expect(sent.first?.role == .system && sent.first?.text == "stay brief", "the system prompt is always sent")
        #expect(sent.last?.text == "and now?")
        #expect(sent.map(ContextBudget.estimate).reduce(0, +) <= 4_000)
        #expect(sent.dropLast().last?.role == .assistant && sent.contains { $0.text == "question 999" })
        #expect(leftOut == 1_000 - (sent.count - 2) / 2 && leftOut > 900)
        #expect(chat.messages.count == 2_002, "the chat keeps every turn")
    }

    @Test("without a budget, a chat past the bound is refused before anything is sent; under it, it is sent whole")
    func refusedWithoutABudget() async throws {
        let directory = try TemporaryDirectory()
        let (id, storage) = try await hugeChat(turns: 1_000, in: directory)
        // The pair: under a bound it fits, the whole chat goes.
        let roomy = BoundedEngine(budget: nil, unbudgetedLimit: 10_000_000)
        _ = try await ask(roomy, in: id, storage: storage, root: directory.path)
        #expect(roomy.asked.withLock { $0.first?.count } == 2_002, "the system prompt, 2,000 messages, the question")

        let bounded = BoundedEngine(budget: nil, unbudgetedLimit: 100_000)
        do {
            _ = try await ask(bounded, in: id, storage: storage, root: directory.path)
            Issue.record("a chat past the bound was sent")
        } catch {
            guard case .engine(let refusal, chatId: id) = error else { throw error }
            #expect(refusal.code == .tooLarge)
            #expect(refusal.description.contains("--context") && !refusal.description.contains("\n"))
        }
        #expect(bounded.asked.withLock { $0.isEmpty }, "nothing was sent")
        let chats = ChatRepository(storage: storage)
        #expect(try await chats.draft(for: id) == "and now?", "the question stays as the draft")
        #expect(try await chats.read(id)?.messages.count == 2_002, "the chat as the roomy turn left it")
    }
}
