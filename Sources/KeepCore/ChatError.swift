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
    /// An id prefix that more than one chat starts with: the prefix, and those chats' ids.
    case ambiguousId(String, candidates: [String])
    /// Text offered as a chat (an import) that is not one, and why.
    case notAChat(String)

    public var description: String {
        switch self {
        case .storage(let error): "\(error)"
        case .unreadable(let chat): "\(chat)"
        case .emptySearch: "give some text to search the chats for"
        case .unreadableDraft(let draft):
            "the draft of chat \(StorageError.quoted(draft.id)) cannot be read: \(draft.reason); it is left as it "
                + "is, and no question is asked in that chat until it is fixed or removed"
        case .ambiguousId(let prefix, let candidates):
            "\(StorageError.quoted(prefix)) is the start of \(candidates.count) chats' ids: "
                + candidates.joined(separator: ", ") + "; give more of the id"
        case .notAChat(let reason): "that is not a keep chat: \(reason)"
        }
    }
}
