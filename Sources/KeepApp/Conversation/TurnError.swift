import KeepCore
import KeepEngines
import KeepPorts

/// Why a turn was not recorded, in one line that says what became of the question.
package enum TurnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No chat, and no draft, has this id.
    case noSuchChat(String)
    /// There is no chat to continue yet.
    case noChatToContinue
    /// The chats could not be read or the question could not be kept; nothing was asked.
    case chats(ChatError)
    /// The store's lock could not be taken.
    case lock(StorageError)
    /// The engine gave no complete answer; the question is the chat's draft.
    case engine(EngineError, chatId: String)
    /// The answer came but could not be stored; the question is the chat's draft.
    case notRecorded(ChatError, chatId: String)

    package var description: String {
        switch self {
        case .noSuchChat(let id):
            "there is no chat \(StorageError.quoted(id)); `keep chats` lists them"
        case .noChatToContinue:
            "there is no chat to continue yet; ask without -c to start one"
        case .chats(let error):
            "\(error)"
        case .lock(let error):
            "cannot lock the store: \(error)"
        case .engine(let error, let id):
            "\(error); the question is kept as chat \(id)'s draft"
        case .notRecorded(let error, let id):
            "the answer could not be saved (\(error)); the question is kept as chat \(id)'s draft"
        }
    }
}
