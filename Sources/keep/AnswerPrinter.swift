import KeepApp
import Synchronization

/// Prints an answer's pieces as they arrive, and ends the answer on a new line. A server
/// wrote them, so each piece's control characters are neutralised (``TerminalText``, one
/// scalar at a time, so a sequence split across pieces is caught too).
final class AnswerPrinter: Sendable {
    private let console: Console
    /// Whether anything was printed, and whether it ended with a newline.
    private let state = Mutex((printed: false, endsWithNewline: false))

    init(_ console: Console) {
        self.console = console
    }

    func print(_ piece: String) {
        guard let last = piece.last else { return }
        console.out(TerminalText.neutralised(piece))
        state.withLock { $0 = (true, last.isNewline) }
    }

    /// A newline, unless the answer printed nothing or already ended with one.
    func finishLine() {
        let needed = state.withLock { $0.printed && !$0.endsWithNewline }
        if needed { console.out("\n") }
        state.withLock { $0 = (false, false) }
    }
}
