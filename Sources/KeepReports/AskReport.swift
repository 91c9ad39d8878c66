import KeepCore

/// What `keep ask --json` prints once the turn is recorded: the answer, the chat it is in,
/// and where it came from.
///
/// ```json
/// { "answer" : "Paris.", "chat" : "20250614-153012-3fa9c1", "engine" : "remote",
///   "model" : "qwen3", "server" : "http://127.0.0.1:8080/v1", "serverName" : "local",
///   "usage" : { "completion" : 3, "prompt" : 21, "total" : 24 } }
/// ```
///
/// `model`, `server`, `serverName` and `usage` are there only when known (the echo engine has none; a
/// server that sends no usage leaves it out).
package struct AskReport: Codable, Sendable, Equatable {
    /// The answer, whole.
    package let answer: String
    /// The id of the chat the turn was recorded in.
    package let chat: String
    /// The engine that answered (`echo`, `remote`).
    package let engine: String?
    /// The model asked, when the engine has models.
    package let model: String?
    /// The server's address, when the engine asked one; never a user name or password.
    package let server: String?
    /// The server's name (`keep servers`), when the engine asked one.
    package let serverName: String?
    /// The tokens the server counted, when it said.
    package let usage: UsageCount?

    /// The report of the last answer of `chat`, as recorded.
    package init(_ chat: Chat) {
        let reply = chat.messages.last { $0.role == .assistant }
        answer = reply?.text ?? ""
        self.chat = chat.id
        engine = chat.engine
        model = reply?.model
        server = reply?.server
        serverName = reply?.serverName
        usage = reply?.usage.map(UsageCount.init)
    }
}

/// A server's token count in a report: `prompt`, `completion`, and their `total`.
package struct UsageCount: Codable, Sendable, Equatable {
    /// Tokens of the conversation sent.
    package let prompt: Int
    /// Tokens of the answer.
    package let completion: Int
    /// The two together.
    package let total: Int

    /// The count of `usage`, as the server reported it.
    package init(_ usage: TokenUsage) {
        prompt = usage.promptTokens
        completion = usage.completionTokens
        total = usage.totalTokens
    }

    /// The count of `prompt` and `completion` tokens; the total is their sum.
    package init(prompt: Int, completion: Int) {
        self.prompt = prompt
        self.completion = completion
        total = prompt + completion
    }
}
