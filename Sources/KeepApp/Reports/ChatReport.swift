import KeepCore

/// What `keep chats show ID --json` prints: one chat whole, and its draft.
///
/// ```json
/// { "created" : "…", "engine" : "echo", "id" : "…",
///   "messages" : [ { "role" : "user", "text" : "hello", "time" : "…" },
///                  { "role" : "assistant", "text" : "echo: hello", "time" : "…" } ],
///   "title" : "hello", "updated" : "…" }
/// ```
///
/// `draft` (the question that waits for an answer) is there only when there is one.
public struct ChatReport: Codable, Sendable, Equatable {
    public struct Message: Codable, Sendable, Equatable {
        /// `user` or `assistant`.
        public let role: String
        public let text: String
        public let time: String
    }

    public let id: String
    public let title: String
    public let created: String
    public let updated: String
    public let engine: String?
    public let messages: [Message]
    /// The question that waits for an answer, if one does.
    public let draft: String?

    public init(_ chat: Chat, draft: String?) {
        id = chat.id
        title = chat.title
        created = UTCTime.text(chat.created)
        updated = UTCTime.text(chat.updated)
        engine = chat.engine
        messages = chat.messages.map {
            Message(role: $0.role.rawValue, text: $0.text, time: UTCTime.text($0.time))
        }
        self.draft = draft
    }
}
