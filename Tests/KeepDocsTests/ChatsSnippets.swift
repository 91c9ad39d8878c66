import KeepCore
import KeepPorts

/// The code of the chats-and-migration article, compiled, and run by the tests on memory
/// adapters.
enum ChatsSnippets {
    /// One turn in a new chat over `storage`: the question kept as the chat's draft while
    /// the answer comes, then both recorded in one write; answers the chat as stored.
    static func oneTurn(_ storage: any StoragePort) async throws -> Chat? {
        let chats = ChatRepository(storage: storage)
        let session = try await ChatSession.start(repository: chats)
        try await session.begin(question: "hello")  // the draft, offered again if no answer comes
        let turn = try await session.recordTurn(question: "hello", answer: "hi", engine: "echo")
        let stored = try await chats.read(session.id)  // the question and its answer, or neither
        print("question at \(turn.questionIndex), answer at \(turn.answerIndex)")
        return stored
    }

    /// Renames the chat `id` of `chats`, as one append when its file is in format 3.
    static func rename(_ chats: ChatRepository, _ id: String) async throws {
        if let stored = try await chats.stored(id) {
            let renamed = try await chats.setTitle("a better title", in: stored)  // one append in format 3
            print(renamed.chat.title)
        }
    }

    /// The store an app uses: `newStore`, after a one-time copy of `oldStore` made before
    /// its first read.
    static func migratedStore(_ newStore: any StoragePort, _ oldStore: any StoragePort) -> any StoragePort {
        let storage = PreparedStorage(
            newStore, migratingFrom: oldStore,
            onError: { error in print("the copy is tried again at the next launch: \(error)") },
            onReport: { report in if let notice = report.notice { print(notice) } })
        return storage
    }
}
