import KeepCore
import KeepPorts

/// Something that answers a conversation: the port the chat commands talk to, whatever
/// produces the words (the offline echo, a remote server).
///
/// ``answer(to:options:receive:)`` answers the last user message of the conversation, asked
/// with this question's ``EngineOptions``, calling `receive` with each piece of the answer as
/// it arrives (so a terminal can print it while it streams), and returns the whole answer
/// once it is complete, as an ``EngineReply`` (the model, the server and the usage where the
/// engine knows them). It throws an ``EngineError`` when no complete answer came, including
/// ``EngineError/Code/cancelled`` when the calling task was cancelled (Ctrl-C); pieces
/// already received are then not an answer, and nothing of them is stored. An engine never
/// holds the user's key longer than one request, and never puts it in an error. A
/// conversation may open with a `ChatMessage.Role.system` message: the system prompt, for an
/// engine that takes one.
///
/// ``endpoint`` says where an engine asks (the server, the model, the key it sends), so the
/// command line can say so without knowing which engine it has.
package protocol ChatEngine: Sendable {
    /// The engine's id, as the `engineId` setting names it and a chat records it.
    var id: String { get }

    /// The server this engine asks, the model it asks by default and the key it sends;
    /// `nil` for an engine that asks no server.
    var endpoint: EngineEndpoint? { get }

    /// The answer, asked with `options`, and where it came from.
    func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply

    /// How many tokens one request for `model` (`nil`: the engine's own) may carry, and
    /// where that came from (``ContextBudget``); ``ContextBudget/Limit/none`` for no budget.
    /// `estimate` is the conversation's (``ContextBudget/estimate(system:history:question:reserve:)``):
    /// an engine need not learn a budget for one that fits any model
    /// (``ContextBudget/fitsAnyModel``). Never fails: a budget that cannot be learned is no budget.
    func contextBudget(model: String?, estimate: Int) async -> ContextBudget.Limit

    /// The most a request may carry, by ``ContextBudget``'s estimate, when there is no
    /// budget; `nil` for an engine that sends nothing anywhere.
    var unbudgetedLimit: Int? { get }
}

extension ChatEngine {
    /// An engine that asks no server has no endpoint.
    package var endpoint: EngineEndpoint? { nil }

    /// No budget: the whole conversation is sent.
    package func contextBudget(model: String?, estimate: Int) async -> ContextBudget.Limit { .none }

    /// An engine that sends nothing has nothing to bound.
    package var unbudgetedLimit: Int? { nil }
}
