import KeepCore
import KeepEngines
import KeepPorts

/// Why a turn was not recorded, in one line that says what became of the question.
package enum TurnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No chat, and no draft, has this id.
    case noSuchChat(String)
    /// There is no chat to continue yet.
    case noChatToContinue
    /// The chats could not be read; nothing was asked.
    case chats(ChatError)
    /// The question could not be kept as the chat's draft, so it was not asked.
    case draftNotKept(ChatError, chatId: String)
    /// The store's lock could not be taken.
    case lock(StorageError)
    /// The engine gave no complete answer; the question is the chat's draft.
    case engine(EngineError, chatId: String)
    /// The answer came but could not be stored; the question is the chat's draft.
    case notRecorded(ChatError, chatId: String)
    /// The answer came, but the chat was removed (`keep chats rm`) while it was asked: the
    /// turn is not kept, and the chat is not made again.
    case chatRemoved(chatId: String)

    package var description: String {
        switch self {
        case .noSuchChat(let id):
            "there is no chat \(StorageError.quoted(id)); `keep chats` lists them"
        case .noChatToContinue:
            "there is no chat to continue yet; ask without -c to start one"
        case .chats(let error):
            "\(error); nothing was asked"
        case .draftNotKept(let error, let id):
            "the question was not asked: it could not be kept as chat \(id)'s draft first (\(error))"
        case .lock(let error):
            "cannot lock the store: \(error)"
        case .engine(let error, let id):
            "\(error); the question is kept as chat \(id)'s draft"
        case .notRecorded(let error, let id):
            "the answer could not be saved (\(error)); the question is kept as chat \(id)'s draft"
        case .chatRemoved(let id):
            "the answer was not kept: chat \(id) was removed while it was being answered"
        }
    }
}
