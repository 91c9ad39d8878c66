import Foundation

/// One completed turn of a chat, as it is recorded: the question and its answer together,
/// when, which engine, model and server answered, what the server counted, the images the
/// question carried, and the system prompt and role the turn set, if it set them.
public struct ChatTurn: Sendable, Equatable {
    /// What was asked.
    public let question: String
    /// What the engine answered, whole.
    public let answer: String
    /// When the turn was recorded: the time of both its messages, to the millisecond.
    public let time: Date
    /// The id of the engine that answered.
    public let engine: String
    /// The model that was asked, when the engine has models.
    public let model: String?
    /// The address of the server that answered (its base URL, never a password).
    public let server: String?
    /// The name of that server in the user's profiles (`-s NAME`), beside its address.
    public let serverName: String?
    /// The tokens the server counted, when it said.
    public let usage: TokenUsage?
    /// The system prompt given for this turn, which becomes the chat's own; `nil` when the
    /// turn gave none (the chat's stays as it was).
    public let system: String?
    /// The role the turn was asked in, which becomes the chat's; `nil` when none was.
    public let role: String?
    /// The images joined to the question (`keep ask -a`).
    public let attachments: [Attachment]

    /// A turn of `question` and `answer` by `engine` at `time` (kept to the millisecond).
    public init(
        question: String, answer: String, time: Date, engine: String, model: String? = nil, server: String? = nil,
        usage: TokenUsage? = nil, system: String? = nil, serverName: String? = nil, role: String? = nil,
        attachments: [Attachment] = []
    ) {
        self.question = question
        self.answer = answer
        self.time = ChatFormat.normalized(time)
        self.engine = engine
        self.model = model
        self.server = server
        self.usage = usage
        self.system = system
        self.serverName = serverName
        self.role = role
        self.attachments = attachments
    }

    /// The question and the answer as the chat's messages.
    var messages: [ChatMessage] {
        [
            ChatMessage(role: .user, text: question, time: time, attachments: attachments),
            ChatMessage(
                role: .assistant, text: answer, time: time, model: model, server: server, usage: usage,
                serverName: serverName),
        ]
    }
}
