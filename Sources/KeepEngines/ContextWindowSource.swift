import Foundation
import KeepCore

/// Where the remote engine learns a model's context window when its server's setting gives
/// none: a port, so the engine never knows where windows are kept (kept data's engines
/// owner keeps them, per server and model, and asks the server again when one is old).
///
/// The contract: ``window(_:authority:edge:readKey:)`` never fails. A window it knows and
/// that is not too old is answered without asking; otherwise the server is asked once
/// (``ContextWindowQuery``, every rule of the network edge holding as for any request:
/// `edge`, the key read through `readKey` only then, its server verified against
/// `authority` when there is one). A server that does not answer, or gives no window,
/// answers `nil` tokens: no budget, never an error.
package protocol ContextWindowSource: Sendable {
    /// The window of the model `query` names, and when it was read; `nil` when it cannot be
    /// told this time (the server did not answer, the key could not be read).
    func window(
        _ query: ContextWindowQuery, authority: String?, edge: EdgePolicy,
        readKey: @escaping @Sendable () async throws(EngineError) -> APIKey?
    ) async -> ContextWindow?
}

/// What a server said of a model's context window: the tokens (`nil`: it gives none) and
/// when it said so.
package struct ContextWindow: Sendable, Equatable {
    /// The window in tokens; `nil` when the server gives none for the model.
    package let tokens: Int?
    /// When the server was asked.
    package let readAt: Date

    /// The window `tokens`, read at `readAt`.
    package init(tokens: Int?, readAt: Date) {
        self.tokens = tokens
        self.readAt = readAt
    }
}
