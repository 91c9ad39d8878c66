import KeepCore
import KeepEngines

/// An engine whose answer the test decides: the text to answer, in pieces, or the error
/// to fail with, after an optional wait the test ends.
package struct ScriptedEngine: ChatEngine {
    package enum Script: Sendable {
        case answer([String])
        case fail(EngineError)
        /// Answers `[text]` only after `release` is resumed (or fails as cancelled when the
        /// task is cancelled first).
        case waitThenAnswer(String, release: AsyncStream<Void>)
    }

    package let id = "scripted"
    package let script: Script

    package init(script: Script) {
        self.script = script
    }

    package func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply {
        switch script {
        case .answer(let pieces):
            pieces.forEach(receive)
            return EngineReply(text: pieces.joined())
        case .fail(let error):
            throw error
        case .waitThenAnswer(let text, let release):
            receive("…")
            for await _ in release { break }
            guard !Task.isCancelled else { throw .cancelled }
            return EngineReply(text: text)
        }
    }
}
