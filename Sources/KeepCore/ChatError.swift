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

    public var description: String {
        switch self {
        case .storage(let error): "chats: \(error)"
        case .unreadable(let chat): "\(chat)"
        case .emptySearch: "give some text to search the chats for"
        }
    }
}
