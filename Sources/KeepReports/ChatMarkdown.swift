import KeepCore

/// A chat as Markdown a person would paste into an issue or a note: the title, the id and
/// times, the system prompt, then each question (quoted) and its answer (as the model wrote
/// it, which is usually Markdown already, its headings one level under the title), with the
/// model and token count that answered.
package enum ChatMarkdown {
    /// `chat` as Markdown, ending in one newline.
    package static func text(of chat: Chat) -> String {
        var lines = ["# \(oneLine(chat.title.isEmpty ? "untitled" : chat.title))", ""]
        lines.append(
            "Chat `\(chat.id)` · \(Plural.of(chat.messages.count, "message")) · "
                + "started \(UTCTime.text(chat.created)) · updated \(UTCTime.text(chat.updated))")
        if let system = chat.system, !system.isEmpty {
            lines += ["", "**System prompt:**", "", quoted(system)]
        }
        for message in chat.messages {
            switch message.role {
            case .user:
                lines += ["", "---", "", "**You** (\(UTCTime.text(message.time))):", "", quoted(message.text)]
            case .assistant, .system:
                lines += ["", "**\(answerer(message))**:", "", demotingHeadings(message.text.trimmingTrailingNewlines)]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Who answered: the model (and its server) with the tokens counted, or `Answer`.
    private static func answerer(_ message: ChatMessage) -> String {
        var parts: [String] = []
        if let model = message.model { parts.append(oneLine(model)) }
        if let server = message.server { parts.append("at \(oneLine(server))") }
        if let usage = message.usage {
            parts.append("\(usage.promptTokens) prompt + \(usage.completionTokens) completion tokens")
        }
        return parts.isEmpty ? "Answer" : "Answer (" + parts.joined(separator: ", ") + ")"
    }

    /// An answer's text with each of its `#` headings one level lower (`#` becomes `##`, to
    /// level 6 at most), so they sit under the chat's title rather than beside it; lines in
    /// a fenced code block (a shell's `# comment`) are left as they are.
    static func demotingHeadings(_ text: String) -> String {
        var fence: (mark: Character, length: Int)?
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let body = line.drop(while: { $0 == " " })
            let indent = line.count - body.count
            if indent <= 3, let mark = body.first, mark == "`" || mark == "~" {
                let run = body.prefix(while: { $0 == mark }).count
                if let open = fence {
                    if mark == open.mark && run >= open.length && body.dropFirst(run).allSatisfy(\.isWhitespace) {
                        fence = nil
                    }
                } else if run >= 3 {
                    fence = (mark, run)
                }
                return String(line)
            }
            guard fence == nil, indent <= 3 else { return String(line) }
            let hashes = body.prefix(while: { $0 == "#" }).count
            guard (1...5).contains(hashes), body.dropFirst(hashes).first.map({ $0 == " " }) ?? true else {
                return String(line)
            }
            return String(line.prefix(indent)) + "#" + body
        }.joined(separator: "\n")
    }

    /// `text` as a Markdown block quote, every line marked.
    private static func quoted(_ text: String) -> String {
        text.trimmingTrailingNewlines.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? ">" : "> \($0)" }.joined(separator: "\n")
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

extension String {
    /// The text without the newlines at its end.
    var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while text.last?.isNewline == true { text = text.dropLast() }
        return String(text)
    }
}
