import KeepApp

/// One command of `keep`, or one subcommand: its name, what it accepts, its help, and
/// what it does.
///
/// A command with subcommands runs the one its first word names; with none named it runs
/// its own `run`, or, without one, is a usage error.
struct Command: Sendable {
    let name: String
    /// One line for the command list.
    let summary: String
    /// The usage line, from `keep` on: `keep ask [--chat ID | -c] [TEXT...]`.
    let usage: String
    /// More help, shown by `--help` under the usage line.
    let help: String
    let arguments: ArgumentParser
    let subcommands: [Command]
    let run: (@Sendable (Invocation) async throws -> Void)?

    init(
        _ name: String, summary: String, usage: String, help: String = "", arguments: ArgumentParser = .init(),
        subcommands: [Command] = [], run: (@Sendable (Invocation) async throws -> Void)? = nil
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.help = help
        self.arguments = arguments
        self.subcommands = subcommands
        self.run = run
    }

    /// What `--help` prints.
    var helpText: String {
        var text = "usage: \(usage)\n"
        for sub in subcommands { text += "       \(sub.usage)\n" }
        text += "\n\(summary)\n"
        if !help.isEmpty { text += "\n\(help)\n" }
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
