import KeepCore
import KeepEngines

/// What one turn is asked with beyond the question: the engine's options for it, and the
/// system prompt.
///
/// The system prompt sent is decided here, in one place (``systemPrompt(for:)``): the one
/// given for this turn (`--system`, `/system`), which the turn also stores as the chat's
/// own; else the chat's own; else the `system` setting. An empty prompt sends none.
package struct TurnOptions: Sendable, Equatable {
    /// The engine's options for this turn: model, temperature, answer length.
    package var engine: EngineOptions
    /// A system prompt given for this turn, kept as the chat's own once the turn is recorded.
    package var system: String?
    /// The `system` setting: for a chat with no system prompt of its own.
    package var defaultSystem: String?
    /// The images joined to this question (`-a`), sent with it.
    package var attachments: [Attachment] = []
    /// The role asked in (`-r`, `/role`), when one is.
    package var role: String?

    /// The options of a turn; with none given, the engine's settings and the chat's own
    /// system prompt apply.
    package init(engine: EngineOptions = EngineOptions(), system: String? = nil, defaultSystem: String? = nil) {
        self.engine = engine
        self.system = system
        self.defaultSystem = defaultSystem
    }

    /// The system prompt to send ahead of `chat`'s conversation; `nil` for none.
    package func systemPrompt(for chat: Chat) -> String? {
        let prompt = system ?? chat.system ?? defaultSystem
        return prompt?.isEmpty == false ? prompt : nil
    }
}
