import KeepCore

/// What `keep chats show ID --json` prints: one chat whole, and its draft.
///
/// ```json
/// { "created" : "…", "engine" : "remote", "id" : "…",
///   "messages" : [ { "role" : "user", "text" : "hello", "time" : "…" },
///                  { "model" : "qwen3", "role" : "assistant", "server" : "http://127.0.0.1:8080/v1",
///                    "text" : "hi", "time" : "…",
///                    "usage" : { "completion" : 2, "prompt" : 9, "total" : 11 } } ],
///   "system" : "answer briefly", "title" : "hello", "updated" : "…" }
/// ```
///
/// `draft` (the question that waits for an answer) is there only when there is one; so are
/// `system` (the chat's own system prompt) and an answer's `model`, `server` and `usage`.
public struct ChatReport: Codable, Sendable, Equatable {
    public struct Message: Codable, Sendable, Equatable {
        /// `user` or `assistant`.
        public let role: String
        public let text: String
        public let time: String
        public let model: String?
        public let server: String?
        public let usage: UsageCount?
    }

    public let id: String
    public let title: String
    public let created: String
    public let updated: String
    public let engine: String?
    /// The chat's own system prompt, if it has one.
    public let system: String?
    public let messages: [Message]
    /// The question that waits for an answer, if one does.
    public let draft: String?

    public init(_ chat: Chat, draft: String?) {
        id = chat.id
        title = chat.title
        created = UTCTime.text(chat.created)
        updated = UTCTime.text(chat.updated)
        engine = chat.engine
        system = chat.system
        messages = chat.messages.map {
            Message(
                role: $0.role.rawValue, text: $0.text, time: UTCTime.text($0.time), model: $0.model,
                server: $0.server, usage: $0.usage.map(UsageCount.init))
        }
        self.draft = draft
    }
}
