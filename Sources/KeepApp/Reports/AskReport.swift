import KeepCore

/// What `keep ask --json` prints once the turn is recorded: the answer, the chat it is in,
/// and where it came from.
///
/// ```json
/// { "answer" : "Paris.", "chat" : "20250614-153012-3fa9c1", "engine" : "remote",
///   "model" : "qwen3", "server" : "http://127.0.0.1:8080/v1",
///   "usage" : { "completion" : 3, "prompt" : 21, "total" : 24 } }
/// ```
///
/// `model`, `server` and `usage` are there only when known (the echo engine has none; a
/// server that sends no usage leaves it out).
public struct AskReport: Codable, Sendable, Equatable {
    /// The answer, whole.
    public let answer: String
    /// The id of the chat the turn was recorded in.
    public let chat: String
    /// The engine that answered (`echo`, `remote`).
    public let engine: String?
    /// The model asked, when the engine has models.
    public let model: String?
    /// The server's address, when the engine asked one; never a user name or password.
    public let server: String?
    /// The tokens the server counted, when it said.
    public let usage: UsageCount?

    /// The report of the last answer of `chat`, as recorded.
    public init(_ chat: Chat) {
        let reply = chat.messages.last { $0.role == .assistant }
        answer = reply?.text ?? ""
        self.chat = chat.id
        engine = chat.engine
        model = reply?.model
        server = reply?.server
        usage = reply?.usage.map(UsageCount.init)
    }
}

/// A server's token count in a report: `prompt`, `completion`, and their `total`.
public struct UsageCount: Codable, Sendable, Equatable {
    /// Tokens of the conversation sent.
    public let prompt: Int
    /// Tokens of the answer.
    public let completion: Int
    /// The two together.
    public let total: Int

    /// The count of `usage`, as the server reported it.
    public init(_ usage: TokenUsage) {
        prompt = usage.promptTokens
        completion = usage.completionTokens
        total = usage.totalTokens
    }

    /// The count of `prompt` and `completion` tokens; the total is their sum.
    public init(prompt: Int, completion: Int) {
        self.prompt = prompt
        self.completion = completion
        total = prompt + completion
    }
}
