import KeepCore

/// What `keep chats show ID --json` prints: one chat whole, and its draft.
///
/// ```json
/// { "created" : "…", "engine" : "remote", "id" : "…",
///   "messages" : [ { "role" : "user", "text" : "hello", "time" : "…" },
///                  { "model" : "qwen3", "role" : "assistant", "server" : "http://127.0.0.1:8080/v1",
///                    "serverName" : "local", "text" : "hi", "time" : "…",
///                    "usage" : { "completion" : 2, "prompt" : 9, "total" : 11 } } ],
///   "role" : "coder", "system" : "answer briefly", "title" : "hello", "updated" : "…" }
/// ```
///
/// `draft` (the question that waits for an answer) is there only when there is one; so are
/// `system` (the chat's own system prompt), `role` (the role it was last asked in), an
/// answer's `model`, `server`, `serverName` and `usage`, and a question's `attachments`
/// (`[{"name" : "chart.png", "size" : 1234, "type" : "image/png"}]`: what was sent, not the
/// bytes).
package struct ChatReport: Codable, Sendable, Equatable {
    /// One message, its time in UTC as keep writes it (`UTCTime`).
    package struct Message: Codable, Sendable, Equatable {
        /// `user` or `assistant`.
        package let role: String
        /// What was said.
        package let text: String
        /// When, as `2025-06-14T15:30:12.345Z`.
        package let time: String
        /// For an answer: the model asked, when known.
        package let model: String?
        /// For an answer: the server's address, when known.
        package let server: String?
        /// For an answer: the tokens the server counted, when it said.
        package let usage: UsageCount?
        /// For an answer: the server's name, when known.
        package var serverName: String?
        /// For a question: the images sent with it.
        package var attachments: [AttachmentInfo]?
    }

    /// An image sent with a question: its name, type and size.
    package struct AttachmentInfo: Codable, Sendable, Equatable {
        package let name: String
        package let type: String
        package let size: Int
    }

    /// The chat's id.
    package let id: String
    /// The chat's title; empty when it has none.
    package let title: String
    /// When the chat began, in UTC.
    package let created: String
    /// When the chat last changed, in UTC.
    package let updated: String
    /// The engine that answered last; left out before the first answer.
    package let engine: String?
    /// The chat's own system prompt, if it has one.
    package let system: String?
    /// The role the chat was last asked in, if any.
    package var role: String?
    /// Every message, oldest first.
    package let messages: [Message]
    /// The question that waits for an answer, if one does.
    package let draft: String?

    /// The report of `chat`, with the question that waits in its `draft`, if any.
    package init(_ chat: Chat, draft: String?) {
        id = chat.id
        title = chat.title
        created = UTCTime.text(chat.created)
        updated = UTCTime.text(chat.updated)
        engine = chat.engine
        system = chat.system
        role = chat.role
        messages = chat.messages.map {
            var message = Message(
                role: $0.role.rawValue, text: $0.text, time: UTCTime.text($0.time), model: $0.model,
                server: $0.server, usage: $0.usage.map(UsageCount.init))
            message.serverName = $0.serverName
            if !$0.attachments.isEmpty {
                message.attachments = $0.attachments.map {
                    AttachmentInfo(name: $0.name, type: $0.mediaType, size: $0.size)
                }
            }
            return message
        }
        self.draft = draft
    }
}
