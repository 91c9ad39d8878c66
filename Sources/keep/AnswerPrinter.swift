import KeepApp
import KeepTerminal
import Synchronization

/// Prints an answer's pieces as they arrive, and ends the answer on a new line.
///
/// How an answer is shown is decided once, by ``Mode/choose(outputIsTerminal:noColor:raw:)``:
/// on a terminal it is rendered (Markdown, word-wrapped to the width: ``MarkdownRenderer``);
/// with `--raw` or `NO_COLOR` on a terminal it is the text as it came, neutralised
/// (``TerminalText``) so a server's escape codes are shown, never obeyed; to a pipe or file
/// it is the server's text exactly. What is stored is never touched here: the chat keeps
/// the raw answer whatever the screen showed.
///
/// On a terminal, ``waiting()`` shows a quiet indicator until the first piece arrives (or
/// the answer ends without one); it is never printed to a pipe.
///
/// A window resized while the answer streams (the terminal's `SIGWINCH`) re-wraps it from
/// the next line on: the terminal's width is read as each piece arrives (one `ioctl`, far
/// cheaper than a piece), rather than by a handler of the signal, which libedit takes over
/// at the prompt.
final class AnswerPrinter: Sendable {
    /// How the pieces reach standard output.
    enum Mode: Equatable {
        /// The server's text exactly: standard output is not a terminal.
        case raw
        /// On a terminal, neutralised but not rendered.
        case plain
        /// On a terminal, neutralised, rendered and wrapped to the width.
        case rendered(width: Int)

        /// The one decision of how an answer is shown.
        static func choose(outputIsTerminal: Bool, noColor: Bool, raw: Bool, width: Int?) -> Mode {
            guard outputIsTerminal else { return .raw }
            if raw || noColor { return .plain }
            return .rendered(width: width ?? 80)
        }
    }

    /// What shows while the answer has not started.
    static let indicator = "\u{1B}[2m…\u{1B}[0m"
    /// Back to the start of the line, the line cleared: the indicator gone.
    static let clearIndicator = "\r\u{1B}[K"

    private struct State {
        var renderer: MarkdownRenderer?
        var printed = false
        var endsWithNewline = false
        var waiting = false
    }

    private let console: Console
    private let mode: Mode
    private let state: Mutex<State>

    /// A printer for `console`'s standard output; `raw` is the user's `--raw`.
    init(_ console: Console, raw: Bool = false) {
        self.console = console
        mode = Mode.choose(
            outputIsTerminal: console.outputIsTerminal, noColor: console.noColor, raw: raw, width: console.columns)
        if case .rendered(let width) = mode {
            state = Mutex(State(renderer: MarkdownRenderer(width: width)))
        } else {
            state = Mutex(State())
        }
    }

    /// Shows the waiting indicator, on a terminal only.
    func waiting() {
        guard mode != .raw else { return }
        state.withLock { $0.waiting = true }
        console.out(Self.indicator)
    }

    func print(_ piece: String) {
        guard !piece.isEmpty else { return }
        let text = state.withLock { state -> String in
            var text = state.waiting ? Self.clearIndicator : ""
            state.waiting = false
            switch mode {
            case .raw: text += piece
            case .plain: text += TerminalText.neutralised(piece)
            case .rendered:
                if let columns = console.columns { state.renderer?.resize(to: columns) }
                text += state.renderer?.feed(piece) ?? ""
            }
            state.printed = true
            if let last = text.last { state.endsWithNewline = last.isNewline }
            return text
        }
        console.out(text)
    }

    /// What is held printed, the indicator gone, and a newline unless the answer printed
    /// nothing or already ended with one.
    func finishLine() {
        let text = state.withLock { state -> String in
            var text = state.waiting ? Self.clearIndicator : ""
            state.waiting = false
            if let rest = state.renderer?.finish(), !rest.isEmpty {
                text += rest
                if let last = rest.last { state.endsWithNewline = last.isNewline }
            }
            if state.printed && !state.endsWithNewline { text += "\n" }
            state.printed = false
            state.endsWithNewline = false
            return text
        }
        if !text.isEmpty { console.out(text) }
    }
}
