/// One command of `keep`, or one subcommand, as data: its place, what it accepts, its help
/// and examples. Its `--help`, its usage line, the man page and the shell completions are
/// all generated from this (``Help``, ``ManPage``, ``ShellCompletions``), so a command added
/// to the table appears in each by itself.
package struct CommandSpec: Sendable {
    package let name: String
    /// The words that run it: `keep chats show`.
    package let path: String
    /// One line for the command list.
    package let summary: String
    /// More help, shown by `--help` under the summary, as paragraphs ``TextFill`` fills.
    package let help: String
    package let examples: [Example]
    package let arguments: ArgumentParser
    package let subcommands: [CommandSpec]
    /// Whether it runs with no subcommand named; `false` when only its subcommands do.
    package let runsAlone: Bool

    package init(
        name: String, path: String, summary: String, help: String = "", examples: [Example] = [],
        arguments: ArgumentParser = .init(), subcommands: [CommandSpec] = [], runsAlone: Bool = true
    ) {
        self.name = name
        self.path = path
        self.summary = summary
        self.help = help
        self.examples = examples
        self.arguments = arguments
        self.subcommands = subcommands
        self.runsAlone = runsAlone
    }

    /// The usage line, generated from ``arguments``: `keep ask [-c] [--json] [TEXT...]`. A
    /// command that only holds subcommands names them: `keep key set|status|rm [ARGS...]`.
    package var usage: String {
        guard !runsAlone, !subcommands.isEmpty else { return Usage.line(path, arguments) }
        return "\(path) \(subcommands.map(\.name).joined(separator: "|")) [ARGS...]"
    }

    /// This command and every command under it, depth first: the whole table when called
    /// on its root.
    package var all: [CommandSpec] {
        [self] + subcommands.flatMap(\.all)
    }
}
