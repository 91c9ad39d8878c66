import KeepCore
import KeepTerminal

/// A chat's earlier turns as a terminal shows them, when a chat is reopened (`/open`,
/// `keep chat ID`) and by `keep chats show` on a terminal.
///
/// Each question follows keep's own prompt mark, `> `, and each answer is shown as
/// ``AnswerPrinter`` shows a new one in the same ``AnswerPrinter/Mode``: rendered, where an
/// answer's own `> quote` is a dim bar, so the only `> ` on the screen is keep's (in bold);
/// plain (`--raw`, `NO_COLOR`), the text as it came, neutralised. Everything from the chat
/// is neutralised (``TerminalText``): it came from a server, a file or an import.
enum Transcript {
    /// `messages` (system prompts left out) for a screen in `mode`, each question after a
    /// blank line; `note` gives a line to show under an answer (its model and tokens).
    static func text(
        of messages: some Sequence<ChatMessage>, mode: AnswerPrinter.Mode,
        note: (ChatMessage) -> String? = { _ in nil }
    ) -> String {
        var text = ""
        for message in messages {
            switch message.role {
            case .user:
                text += "\n" + question(message.text, mode: mode)
            case .assistant:
                text += answer(message.text, mode: mode)
                if let note = note(message) { text += "  (\(TerminalText.neutralised(note)))\n" }
            case .system:
                continue
            }
        }
        return text
    }

    /// A question after the prompt mark, its later lines under its first; wrapped to the
    /// width when rendered.
    static func question(_ question: String, mode: AnswerPrinter.Mode) -> String {
        let body = TerminalText.neutralised(question).replacingOccurrences(of: "\n", with: "\n  ")
        guard case .rendered(let width) = mode else { return "> " + body + "\n" }
        let wrapped = TextWrap.wrapped("> " + body, width: width, hang: 2)
        return "\u{1B}[1m>\u{1B}[0m" + wrapped.dropFirst() + "\n"
    }

    /// An answer as a new one would show, ending in a newline.
    static func answer(_ answer: String, mode: AnswerPrinter.Mode) -> String {
        var text: String
        switch mode {
        case .rendered(let width):
            var renderer = MarkdownRenderer(width: width)
            text = renderer.feed(answer) + renderer.finish()
        case .plain, .raw:
            text = TerminalText.neutralised(answer)
        }
        if text.last != "\n" { text += "\n" }
        return text
    }
}
