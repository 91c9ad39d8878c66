import KeepPorts

/// Why a chat could not be listed, read, written or searched.
///
/// `code` is what a caller switches on; the facts below it (``storage``, ``chat``,
/// ``candidates``, ``reason``) are there for the codes they belong to. The description
/// names the chat and the reason; it never quotes a message.
public struct ChatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Growable: a struct over a private enum, so a later version may add a code as a new
    /// static member without breaking anyone's `switch`. Compare with `==`, or switch with a
    /// `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case storage, unreadable, emptySearch, unreadableDraft, ambiguousId, notAChat, removed
        }

        fileprivate let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The store could not be reached.
        public static let storage = Code(.storage)
        /// The chat is stored, but its contents cannot be read as a chat.
        public static let unreadable = Code(.unreadable)
        /// A search needs some text to look for.
        public static let emptySearch = Code(.emptySearch)
        /// The chat's draft is stored, but cannot be read; it is left as it is.
        public static let unreadableDraft = Code(.unreadableDraft)
        /// An id prefix that more than one chat starts with.
        public static let ambiguousId = Code(.ambiguousId)
        /// Text offered as a chat (an import) that is not one.
        public static let notAChat = Code(.notAChat)
        /// The chat was removed while a change to it was on its way.
        public static let removed = Code(.removed)

        /// The code's name: `storage`, `unreadable`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is: what a caller switches on.
    public let code: Code
    /// The store's failure, for ``Code/storage``.
    public let storage: StorageError?
    /// The chat (or draft) that cannot be read and why, for ``Code/unreadable`` and
    /// ``Code/unreadableDraft``.
    public let chat: UnreadableChat?
    /// The id prefix, for ``Code/ambiguousId``; the removed chat's id, for ``Code/removed``.
    public let prefix: String?
    /// The ids the prefix starts, for ``Code/ambiguousId``.
    public let candidates: [String]
    /// Why the text is not a chat, for ``Code/notAChat``.
    public let reason: String?

    private init(
        _ code: Code, storage: StorageError? = nil, chat: UnreadableChat? = nil, prefix: String? = nil,
        candidates: [String] = [], reason: String? = nil
    ) {
        self.code = code
        self.storage = storage
        self.chat = chat
        self.prefix = prefix
        self.candidates = candidates
        self.reason = reason
    }

    /// The store could not be reached.
    public static func storage(_ error: StorageError) -> ChatError {
        ChatError(.storage, storage: error)
    }

    /// The chat is stored, but its contents cannot be read as a chat.
    public static func unreadable(_ chat: UnreadableChat) -> ChatError {
        ChatError(.unreadable, chat: chat)
    }

    /// A search needs some text to look for.
    public static let emptySearch = ChatError(.emptySearch)

    /// The chat's draft is stored, but cannot be read; it is left as it is.
    public static func unreadableDraft(_ draft: UnreadableChat) -> ChatError {
        ChatError(.unreadableDraft, chat: draft)
    }

    /// An id prefix that more than one chat starts with: the prefix, and those chats' ids.
    public static func ambiguousId(_ prefix: String, candidates: [String]) -> ChatError {
        ChatError(.ambiguousId, prefix: prefix, candidates: candidates)
    }

    /// Text offered as a chat (an import) that is not one, and why.
    public static func notAChat(_ reason: String) -> ChatError {
        ChatError(.notAChat, reason: reason)
    }

    /// The chat with this id was removed while a change to it was on its way: nothing was
    /// written, and it is not brought back.
    public static func removed(_ id: String) -> ChatError {
        ChatError(.removed, prefix: id)
    }

    public var description: String {
        switch code.base {
        case .storage:
            return "\(storage.map { "\($0)" } ?? "the store failed")"
        case .unreadable:
            return chat.map { "\($0)" } ?? "a chat cannot be read"
        case .emptySearch:
            return "give some text to search the chats for"
        case .unreadableDraft:
            return "the draft of chat \(StorageError.quoted(chat?.id ?? "")) cannot be read: \(chat?.reason ?? ""); "
                + "it is left as it is, and no question is asked in that chat until it is fixed or removed"
        case .ambiguousId:
            return "\(StorageError.quoted(prefix ?? "")) is the start of \(candidates.count) chats' ids: "
                + candidates.joined(separator: ", ") + "; give more of the id"
        case .notAChat:
            return "that is not a keep chat: \(reason ?? "")"
        case .removed:
            return "chat \(StorageError.quoted(prefix ?? "")) was removed meanwhile; nothing was written to it, and it "
                + "stays removed"
        }
    }
}
