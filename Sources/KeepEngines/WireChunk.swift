/// What one server-sent event (or a whole JSON answer) adds to an answer, in any protocol:
/// text, token counts, and whether the answer is complete or the stream is over.
struct WireChunk: Sendable, Equatable {
    /// The text this event adds.
    var text = ""
    /// The prompt's tokens, when the event counts them.
    var promptTokens: Int?
    /// The answer's tokens so far, when the event counts them.
    var completionTokens: Int?
    /// The server said the answer is complete (a finish or stop reason).
    var isFinal = false
    /// The stream is over: nothing after this event is read (`[DONE]`, `message_stop`).
    var isEnd = false
}

/// A server's event or body that is not an answer: an error it reports in its own shape
/// (with its message, when it gave one), or something that is not this protocol at all.
enum WireFailure: Error, Sendable, Equatable {
    case reported(String?)
    case notThisProtocol
}
