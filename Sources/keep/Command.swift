import KeepCLI

/// One command of `keep`, or one subcommand: its name, what it accepts, its help, and
/// what it does.
///
/// A command with subcommands runs the one its first word names; with none named it runs
/// its own `run`, or, without one, is a usage error. Its usage line and the options part
/// of its help are generated from `arguments` (``Usage``), never typed.
struct Command: Sendable {
    let name: String
    /// The words that run it: `keep chats show`.
    let path: String
    /// One line for the command list.
    let summary: String
    /// More help, shown by `--help` under the summary, before the options.
    let help: String
    let arguments: ArgumentParser
    let subcommands: [Command]
    let run: (@Sendable (Invocation) async throws -> Void)?

    init(
        _ name: String, summary: String, help: String = "", arguments: ArgumentParser = .init(),
        subcommands: [Command] = [], run: (@Sendable (Invocation) async throws -> Void)? = nil
    ) {
        self.init(
            name, path: "keep \(name)", summary: summary, help: help, arguments: arguments,
            subcommands: subcommands.map { $0.placed(under: "keep \(name)") }, run: run)
    }

    private init(
        _ name: String, path: String, summary: String, help: String, arguments: ArgumentParser,
        subcommands: [Command], run: (@Sendable (Invocation) async throws -> Void)?
    ) {
        self.name = name
        self.path = path
        self.summary = summary
        self.help = help
        self.arguments = arguments
        self.subcommands = subcommands
        self.run = run
    }

    /// This command as a subcommand of the command whose path is `parent`.
    private func placed(under parent: String) -> Command {
        Command(
            name, path: "\(parent) \(name)", summary: summary, help: help, arguments: arguments,
            subcommands: subcommands, run: run)
    }

    /// The usage line, generated from ``arguments``: `keep ask [-c] [--json] [TEXT...]`. A
    /// command that only holds subcommands names them: `keep key set|status|rm [ARGS...]`.
    var usage: String {
        guard run == nil, !subcommands.isEmpty else { return Usage.line(path, arguments) }
        return "\(path) \(subcommands.map(\.name).joined(separator: "|")) [ARGS...]"
    }

    /// What `--help` prints.
    var helpText: String {
        var text = "usage: \(usage)\n"
        for sub in subcommands { text += "       \(sub.usage)\n" }
        text += "\n\(summary)\n"
        if !help.isEmpty { text += "\n\(help)\n" }
        if !arguments.options.isEmpty { text += "\nOptions:\n\(Usage.optionLines(arguments.options))\n" }
        if !subcommands.isEmpty {
            text += "\n"
            let width = subcommands.map(\.name.count).max() ?? 0
            for sub in subcommands {
                text += "  \(sub.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(sub.summary)\n"
            }
        }
        return text
    }
}
