import Foundation

/// What a listing shows of one chat, without its messages: what a chat index keeps so a
/// listing need not read every chat.
///
/// It holds only fields every chat format has (id, title, times, message count, the engine
/// that answered last), so a richer format changes nothing here.
public struct ChatSummary: Sendable, Equatable, Identifiable {
    public let id: String
    /// The chat's title; empty when it has none.
    public let title: String
    /// When the chat began.
    public let created: Date
    /// When the chat last changed.
    public let updated: Date
    /// How many messages (questions and answers) the chat holds.
    public let messageCount: Int
    /// The engine that gave the last answer; `nil` before the first.
    public let engine: String?

    /// A summary with these fields, as a chat index stored them.
    public init(id: String, title: String, created: Date, updated: Date, messageCount: Int, engine: String?) {
        self.id = id
        self.title = title
        self.created = created
        self.updated = updated
        self.messageCount = messageCount
        self.engine = engine
    }

    /// The summary of `chat`.
    public init(_ chat: Chat) {
        self.init(
            id: chat.id, title: chat.title, created: chat.created, updated: chat.updated,
            messageCount: chat.messages.count, engine: chat.engine)
    }

    /// Whether `self` is listed before `other`: most recently updated first, then most
    /// recently created, then by id, the order ``ChatRepository/scan()`` lists chats in.
    public func precedes(_ other: ChatSummary) -> Bool {
        (updated, created, id) > (other.updated, other.created, other.id)
    }
}
