import KeepCLI

/// One command of `keep`, or one subcommand: its name, what it accepts, its help and
/// examples, and what it does.
///
/// A command with subcommands runs the one its first word names; with none named it runs
/// its own `run`, or, without one, is a usage error. Its usage line, its help, its page in
/// the manual and its shell completion are generated from ``spec`` (``Help``, ``ManPage``,
/// ``ShellCompletions``), never typed.
struct Command: Sendable {
    let name: String
    /// The words that run it: `keep chats show`.
    let path: String
    /// One line for the command list.
    let summary: String
    /// More help, shown by `--help` under the summary, before the options: paragraphs,
    /// filled to 80 columns when shown (a line that starts with a space is kept as it is).
    let help: String
    /// What to type, and what it does: at least one for every command.
    let examples: [Example]
    let arguments: ArgumentParser
    let subcommands: [Command]
    let run: (@Sendable (Invocation) async throws -> Void)?

    init(
        _ name: String, summary: String, help: String = "", examples: KeyValuePairs<String, String> = [:],
        arguments: ArgumentParser = .init(), subcommands: [Command] = [],
        run: (@Sendable (Invocation) async throws -> Void)? = nil
    ) {
        self.init(
            name, path: "keep \(name)", summary: summary, help: help,
            examples: examples.map { Example($0.key, $0.value) },
            arguments: arguments, subcommands: subcommands.map { $0.placed(under: "keep \(name)") }, run: run)
    }

    private init(
        _ name: String, path: String, summary: String, help: String, examples: [Example], arguments: ArgumentParser,
        subcommands: [Command], run: (@Sendable (Invocation) async throws -> Void)?
    ) {
        self.name = name
        self.path = path
        self.summary = summary
        self.help = help
        self.examples = examples
        self.arguments = arguments
        self.subcommands = subcommands
        self.run = run
    }

    /// This command as a subcommand of the command whose path is `parent`.
    private func placed(under parent: String) -> Command {
        Command(
            name, path: "\(parent) \(name)", summary: summary, help: help, examples: examples,
            arguments: arguments, subcommands: subcommands.map { $0.placed(under: "\(parent) \(name)") }, run: run)
    }

    /// The command as data, for the generators of its help, manual page and completions.
    var spec: CommandSpec {
        CommandSpec(
            name: name, path: path, summary: summary, help: help, examples: examples, arguments: arguments,
            subcommands: subcommands.map(\.spec), runsAlone: run != nil)
    }

    /// The usage line, generated from ``arguments``: `keep ask [-c] [--json] [TEXT...]`.
    var usage: String { spec.usage }

    /// What `--help` prints.
    var helpText: String { Help.text(spec) }
}
