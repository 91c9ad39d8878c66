/// What `keep --help`, `keep COMMAND --help` and `keep help TOPIC` print, generated from
/// the command table's data (``CommandSpec``, ``HelpTopic``) and filled to
/// ``TextFill/width`` columns, so that no line of help is wider than a terminal.
package enum Help {
    /// What `--help` prints for `command`: its usage lines (its own, then each
    /// subcommand's), its summary and help, its options, its subcommands and its examples.
    package static func text(_ command: CommandSpec) -> String {
        var text = usage(command) + "\n\n" + TextFill.filled(command.summary) + "\n"
        if !command.help.isEmpty { text += "\n" + TextFill.filled(command.help) + "\n" }
        if !command.arguments.options.isEmpty {
            text += "\nOptions:\n" + Usage.optionLines(command.arguments.options) + "\n"
        }
        if !command.subcommands.isEmpty {
            text += "\nCommands:\n" + list(command.subcommands) + "\n"
        }
        return text + examples(command.examples)
    }

    /// The usage block, `usage: ` and the command's usage line, then each subcommand's under
    /// it; a line wider than ``TextFill/width`` goes on under the first word after its path,
    /// never splitting a bracketed option.
    package static func usage(_ command: CommandSpec) -> String {
        lines([command] + command.subcommands, prefix: "usage: ")
    }

    /// The usage block of a command that is not in the table (`keep [COMMAND] [ARGS...]`).
    package static func usage(line: String) -> String {
        usageLines(line, prefix: "usage: ").joined(separator: "\n")
    }

    /// What `keep --help` prints: the usage, what keep is, its commands and help topics,
    /// the notes that hold for every command, and examples.
    package static func overview(
        usage line: String, description: String, commands: [CommandSpec], topics: [HelpTopic], notes: String,
        examples: [Example]
    ) -> String {
        var text = usage(line: line) + "\n\n" + TextFill.filled(description) + "\n"
        text += "\nCommands:\n" + list(commands) + "\n"
        if !topics.isEmpty {
            text += "\nHelp topics (keep help TOPIC):\n" + list(topics.map { ($0.name, $0.summary) }) + "\n"
        }
        return text + "\n" + TextFill.filled(notes) + "\n" + self.examples(examples)
    }

    /// What `keep help TOPIC` prints: the topic's summary, then its text.
    package static func text(_ topic: HelpTopic) -> String {
        TextFill.filled(topic.summary) + "\n\n" + TextFill.filled(topic.text) + "\n"
    }

    /// The examples section, `Examples:` and each example's explanation with its command
    /// under it; empty for none.
    package static func examples(_ examples: [Example]) -> String {
        guard !examples.isEmpty else { return "" }
        return "\nExamples:\n"
            + examples.map { example in
                TextFill.wrapped(example.explanation, width: TextFill.width - 2).map { "  " + $0 + "\n" }.joined()
                    + "    \(example.command)\n"
            }.joined(separator: "\n")
    }

    /// The commands, by name and summary, in two columns.
    package static func list(_ commands: [CommandSpec]) -> String {
        list(commands.map { ($0.name, $0.summary) })
    }

    /// Names and summaries in two columns.
    private static func list(_ rows: [(String, String)]) -> String {
        TextFill.columns(rows).joined(separator: "\n")
    }

    /// The usage lines of `commands`, the first after `prefix`, the others under it.
    private static func lines(_ commands: [CommandSpec], prefix: String) -> String {
        let indent = String(repeating: " ", count: prefix.count)
        return commands.enumerated().flatMap { index, command in
            usageLines(command.usage, prefix: index == 0 ? prefix : indent, path: command.path)
        }.joined(separator: "\n")
    }

    /// One usage line after `prefix`, wrapped: its continuation lines start under the first
    /// word after `path` (or after the line's first word when `path` is not given).
    private static func usageLines(_ line: String, prefix: String, path: String? = nil) -> [String] {
        var words = Usage.words(line)
        let pathWords = path.map { $0.split(separator: " ").count } ?? 1
        let head = words.prefix(pathWords).joined(separator: " ")
        words.removeFirst(min(pathWords, words.count))
        let indent = prefix.count + head.count + 1
        guard !words.isEmpty else { return [prefix + head] }
        var wrapped = TextFill.wrapped(words: words, width: TextFill.width - indent)
        wrapped[0] = prefix + head + " " + wrapped[0]
        for index in wrapped.indices.dropFirst() {
            wrapped[index] = String(repeating: " ", count: indent) + wrapped[index]
        }
        return wrapped
    }
}
