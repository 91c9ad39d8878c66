import KeepPorts

/// Why a chat could not be listed, read, written or searched.
///
/// The description names the chat and the reason; it never quotes a message.
public enum ChatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store could not be reached.
    case storage(StorageError)
    /// The chat is stored, but its contents cannot be read as a chat.
    case unreadable(UnreadableChat)
    /// A search needs some text to look for.
    case emptySearch
    /// An id prefix that more than one chat starts with: the prefix, and those chats' ids.
    case ambiguousId(String, candidates: [String])
    /// Text offered as a chat (an import) that is not one, and why.
    case notAChat(String)

    public var description: String {
        switch self {
        case .storage(let error): "chats: \(error)"
        case .unreadable(let chat): "\(chat)"
        case .emptySearch: "give some text to search the chats for"
        case .ambiguousId(let prefix, let candidates):
            "\(StorageError.quoted(prefix)) is the start of \(candidates.count) chats' ids: "
                + candidates.joined(separator: ", ") + "; give more of the id"
        case .notAChat(let reason): "that is not a keep chat: \(reason)"
        }
    }
}
