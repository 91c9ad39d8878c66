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
    /// The chat's draft is stored, but cannot be read; it is left as it is.
    case unreadableDraft(UnreadableChat)

    public var description: String {
        switch self {
        case .storage(let error): "chats: \(error)"
        case .unreadable(let chat): "\(chat)"
        case .emptySearch: "give some text to search the chats for"
        case .unreadableDraft(let draft):
            "the draft of chat \(StorageError.quoted(draft.id)) cannot be read: \(draft.reason); it is left as it "
                + "is, and no question is asked in that chat until it is fixed or removed"
        }
    }
}
