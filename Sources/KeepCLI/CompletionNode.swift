/// One command of the table as a shell completes it: its subcommands, its options, and
/// what each positional completes to. ``ShellCompletions`` writes a script from the
/// nodes of the whole table.
package struct CompletionNode: Sendable {
    /// One option: every name it goes by, what it does, and what its value completes to
    /// (`nil` for a flag).
    package struct Option: Sendable, Equatable {
        package let names: [String]
        package let help: String
        package let value: ValueCompletion?
    }

    /// The command's path after `keep`: `chats show`; empty for `keep` itself.
    package let path: String
    /// Its subcommands, by name and summary.
    package let subcommands: [(name: String, summary: String)]
    /// Its options, `-h`/`--help` first (every command takes it).
    package let options: [Option]
    /// What each positional completes to, in order (required ones, then optional ones).
    package let positionals: [ValueCompletion]
    /// What every positional after those completes to.
    package let rest: ValueCompletion

    /// The nodes of `root` and of every command under it, depth first. A value's
    /// completion is the one `values` names for its placeholder (`ID`, `SLOT`), else what
    /// its spelling offers (``ValueCompletion/spelled(_:)``).
    package static func nodes(_ root: CommandSpec, values: [String: ValueCompletion]) -> [CompletionNode] {
        let prefix = root.path + " "
        return root.all.map { command in
            let path = command.path.hasPrefix(prefix) ? String(command.path.dropFirst(prefix.count)) : ""
            return node(command, path: path, values: values)
        }
    }

    private static func node(_ command: CommandSpec, path: String, values: [String: ValueCompletion]) -> CompletionNode
    {
        func completion(_ placeholder: String) -> ValueCompletion {
            values[placeholder] ?? ValueCompletion.spelled(placeholder)
        }
        let arguments = command.arguments
        let help = Option(names: ["-h", "--help"], help: "show this command's help", value: nil)
        let options = arguments.options.map { option in
            Option(names: option.names, help: option.help, value: option.value.map(completion))
        }
        var rest = ValueCompletion.none
        if let named = arguments.rest, !arguments.restIsRefused { rest = completion(named) }
        return CompletionNode(
            path: path, subcommands: command.subcommands.map { ($0.name, $0.summary) }, options: [help] + options,
            positionals: (arguments.required + arguments.optional).map(completion), rest: rest)
    }

    /// Every name of every option that takes a value.
    package var valued: [String] {
        options.filter { $0.value != nil }.flatMap(\.names)
    }
}
