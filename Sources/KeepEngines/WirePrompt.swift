import KeepCore

/// What one request asks, whatever the protocol: the model, the system prompt, the
/// conversation (questions and answers, oldest first, images with their questions), the
/// temperature and the cap on the answer.
struct WirePrompt: Sendable {
    let model: String
    /// The system prompt, sent as each protocol takes it; `nil` for none.
    let system: String?
    /// The questions and answers, never a system message.
    let messages: [ChatMessage]
    let temperature: Double
    let maxTokens: Int?
    /// Whether to ask an OpenAI-compatible server for a last chunk with the usage.
    let askUsage: Bool

    /// The prompt for `conversation`: its system messages joined into ``system``, the rest
    /// in order.
    init(model: String, conversation: [ChatMessage], temperature: Double, maxTokens: Int?, askUsage: Bool) {
        self.model = model
        let system = conversation.filter { $0.role == .system }.map(\.text)
        self.system = system.isEmpty ? nil : system.joined(separator: "\n\n")
        messages = conversation.filter { $0.role != .system }
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.askUsage = askUsage
    }

    /// Whether any message carries an image.
    var hasImages: Bool { messages.contains { !$0.attachments.isEmpty } }
}
