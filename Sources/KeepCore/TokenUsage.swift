/// How many tokens a server counted for one answer: the prompt it read and the completion
/// it wrote, as it reported them (keep never estimates).
public struct TokenUsage: Sendable, Equatable, Codable {
    /// Tokens of the conversation sent (system prompt, history and question).
    public let promptTokens: Int
    /// Tokens of the answer.
    public let completionTokens: Int

    /// The counts as the server reported them.
    public init(promptTokens: Int, completionTokens: Int) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
    }

    /// Both together.
    public var totalTokens: Int { promptTokens + completionTokens }
}
