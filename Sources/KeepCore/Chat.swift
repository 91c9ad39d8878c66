import Foundation

/// A conversation as the app keeps it: its id, a title, the messages in order, when it
/// began and last changed, the engine that answered last, and its own system prompt.
///
/// Only complete turns are ever part of a stored chat: a question is added together with
/// its answer (``ChatSession/recordTurn(question:answer:engine:model:server:usage:system:serverName:attachments:role:)``). How a chat is written to
/// storage is decided by ``ChatRepository`` alone.
public struct Chat: Sendable, Equatable, Identifiable {
    public let id: String
    /// The chat's title; empty until something names it.
    public var title: String
    /// The messages, oldest first, in whole turns: a question is never stored without its
    /// answer.
    public var messages: [ChatMessage]
    /// When the chat began.
    public var created: Date
    /// When the chat last changed; listings put the most recent first.
    public var updated: Date
    /// The id of the engine that gave the last answer; `nil` before the first.
    public var engine: String?
    /// The chat's own system prompt, sent ahead of its conversation; `nil` when it has none
    /// (the `system` setting then applies), `""` when it wants none at all.
    public var system: String?
    /// The role the chat was last asked in (`keep ask -r`, `/role`); `nil` for none.
    public var role: String?

    /// A chat with `id`, last changed at `updated` (or `created`, when not given). Nothing
    /// is stored until the repository writes it.
    public init(
        id: String, title: String = "", messages: [ChatMessage] = [], created: Date, updated: Date? = nil,
        engine: String? = nil, system: String? = nil, role: String? = nil
    ) {
        self.role = role
        self.id = id
        self.title = title
        self.messages = messages
        self.created = created
        self.updated = updated ?? created
        self.engine = engine
        self.system = system
    }
}
