import KeepCore

/// Something that answers a conversation: the port the chat commands talk to, whatever
/// produces the words (the offline echo, a remote server).
///
/// ``reply(to:receive:)`` answers the last user message of the conversation, calling
/// `receive` with each piece of the answer as it arrives (so a terminal can print it
/// while it streams), and returns the whole answer once it is complete. It throws an
/// ``EngineError`` when no complete answer came, including ``EngineError/Code/cancelled``
/// when the calling task was cancelled (Ctrl-C); pieces already received are then not an
/// answer, and nothing of them is stored. An engine never holds the user's key longer
/// than one request, and never puts it in an error.
///
/// ``answer(to:options:receive:)`` is the same turn with this question's ``EngineOptions``,
/// answering an ``EngineReply`` (the model, the server and the usage where the engine knows
/// them). A conversation may open with a `ChatMessage.Role.system` message: the system
/// prompt, for an engine that takes one.
package protocol ChatEngine: Sendable {
    /// The engine's id, as the `engineId` setting names it and a chat records it.
    var id: String { get }

    /// The answer to the conversation's last user message, streamed through `receive`.
    func reply(
        to conversation: [ChatMessage], receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> String

    /// The answer, asked with `options`, and where it came from.
    func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply

    /// How many tokens one request may carry (``ContextBudget``); `nil` for no limit.
    var contextBudget: Int? { get }
}

extension ChatEngine {
    /// No limit: the whole conversation is sent.
    package var contextBudget: Int? { nil }

    /// An engine with no models and no server: ``reply(to:receive:)``, options ignored.
    package func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply {
        EngineReply(text: try await reply(to: conversation, receive: receive))
    }
}
