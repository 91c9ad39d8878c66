import Synchronization

/// Prints an answer's pieces as they arrive, and ends the answer on a new line.
final class AnswerPrinter: Sendable {
    private let console: Console
    /// Whether anything was printed, and whether it ended with a newline.
    private let state = Mutex((printed: false, endsWithNewline: false))

    init(_ console: Console) {
        self.console = console
    }

    func print(_ piece: String) {
        guard let last = piece.last else { return }
        console.out(piece)
        state.withLock { $0 = (true, last.isNewline) }
    }

    /// A newline, unless the answer printed nothing or already ended with one.
    func finishLine() {
        let needed = state.withLock { $0.printed && !$0.endsWithNewline }
        if needed { console.out("\n") }
        state.withLock { $0 = (false, false) }
    }
}
