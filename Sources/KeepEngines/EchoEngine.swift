import KeepCore

/// The offline engine, and the default: it answers at once, with no key and no network,
/// by repeating the question (`echo: <question>`), so a new user sees keep work.
///
/// The answer is deterministic and streamed word by word, yielding between pieces, so the
/// same streaming and cancellation paths as a remote answer are exercised. Cancelled
/// before the last piece, it throws ``EngineError/cancelled``.
package struct EchoEngine: ChatEngine {
    /// The value of the `engineId` setting that chooses it: `echo`.
    package static let engineId = "echo"

    package var id: String { Self.engineId }

    /// The echo engine; it needs nothing.
    package init() {}

    /// `echo: ` and the last question, streamed word by word; `options` are ignored (the
    /// echo has no models and no server).
    package func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply {
        let question = conversation.last { $0.role == .user }?.text ?? ""
        let answer = "echo: " + question
        for piece in Self.pieces(of: answer) {
            guard !Task.isCancelled else { throw .cancelled }
            receive(piece)
            await Task.yield()
        }
        return EngineReply(text: answer)
    }

    /// `text` cut after each run of spaces, so the pieces join back to exactly `text`.
    static func pieces(of text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in text {
            if character != " ", current.last == " " {
                pieces.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}
