import KeepCore

/// A complete answer from an engine, with what is known of where it came from: the model
/// asked, the server's address, and the tokens the server counted.
package struct EngineReply: Sendable, Equatable {
    /// The answer, whole, as it was streamed.
    package let text: String
    /// The model that was asked; `nil` for an engine without models.
    package let model: String?
    /// The server's address, never a user name or password; `nil` for an offline engine.
    package let server: String?
    /// The server's own count of tokens, when it sent one.
    package let usage: TokenUsage?
    /// The name of the server that answered (`default`, `claude`); `nil` for an offline engine.
    package let serverName: String?

    /// The reply `text`, with what is known of where it came from.
    package init(
        text: String, model: String? = nil, server: String? = nil, usage: TokenUsage? = nil, serverName: String? = nil
    ) {
        self.serverName = serverName
        self.text = text
        self.model = model
        self.server = server
        self.usage = usage
    }
}
