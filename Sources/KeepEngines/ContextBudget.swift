import KeepCore

/// What of a conversation fits a server's context budget: the oldest turns left out of the
/// request (never out of the chat) until the estimate fits; the system prompt and the
/// question asked now are always sent.
///
/// The estimate is deliberately rough and on the large side: a token per four bytes of
/// text, four more per message, ``imageTokens`` per image. A server that counts differently
/// still gets a request of about the right size.
package enum ContextBudget {
    /// What an image is counted as.
    package static let imageTokens = 1_000

    /// The estimated tokens of `message`.
    package static func estimate(_ message: ChatMessage) -> Int {
        (message.text.utf8.count + 3) / 4 + 4 + message.attachments.count * imageTokens
    }

    /// `conversation` (system messages first, then whole turns, then the question) fitted to
    /// `budget` tokens with `reserve` kept for the answer: the messages to send, and how many
    /// turns were left out. No budget sends everything.
    package static func fit(
        _ conversation: [ChatMessage], budget: Int?, reserve: Int = 0
    ) -> (messages: [ChatMessage], leftOut: Int) {
        guard let budget, conversation.count > 1 else { return (conversation, 0) }
        let system = conversation.filter { $0.role == .system }
        var rest = conversation.filter { $0.role != .system }
        let question = rest.removeLast()
        let fixed = (system + [question]).map(estimate).reduce(0, +) + reserve
        var total = fixed + rest.map(estimate).reduce(0, +)
        var leftOut = 0
        // Whole turns, oldest first: a question and the answer after it.
        while total > budget, !rest.isEmpty {
            let turn = rest.first?.role == .user && rest.count > 1 && rest[1].role == .assistant ? 2 : 1
            total -= rest.prefix(turn).map(estimate).reduce(0, +)
            rest.removeFirst(turn)
            leftOut += 1
        }
        return (system + rest + [question], leftOut)
    }
}
