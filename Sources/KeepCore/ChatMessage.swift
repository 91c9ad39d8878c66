import Foundation

/// One message of a chat: who said it, what, and when; for an answer, also which model at
/// which server gave it and the tokens the server counted, when known.
public struct ChatMessage: Sendable, Equatable {
    /// Who wrote a message.
    public enum Role: String, Sendable, CaseIterable {
        /// The person asking.
        case user
        /// The engine answering.
        case assistant
        /// Instructions to the engine ahead of the conversation (a system prompt). Only ever
        /// sent to an engine: a chat keeps its system prompt in ``Chat/system``, never as a
        /// message.
        case system
    }

    /// Who wrote the message.
    public let role: Role
    /// What was said, as typed or as answered.
    public let text: String
    /// When the message was written (the answer's, when it was received).
    public let time: Date
    /// The model that was asked for this answer; `nil` for a question, an engine without
    /// models (echo), or an answer recorded before keep kept it.
    public let model: String?
    /// The address of the server that answered (its base URL, never a password); `nil` as
    /// for ``model``.
    public let server: String?
    /// The tokens the server counted for this answer, when it said.
    public let usage: TokenUsage?
    /// The name of the server that answered (`default`, `claude`); `nil` as for ``model``.
    public let serverName: String?
    /// The images joined to a question (`keep ask -a`), sent again with it in every later
    /// request of the chat; none for an answer.
    public let attachments: [Attachment]

    /// A message by `role` at `time`; `model`, `server`, `serverName` and `usage` belong to
    /// answers only, `attachments` to questions.
    public init(
        role: Role, text: String, time: Date, model: String? = nil, server: String? = nil, usage: TokenUsage? = nil,
        attachments: [Attachment] = [], serverName: String? = nil
    ) {
        self.attachments = attachments
        self.serverName = serverName
        self.role = role
        self.text = text
        self.time = time
        self.model = model
        self.server = server
        self.usage = usage
    }
}
