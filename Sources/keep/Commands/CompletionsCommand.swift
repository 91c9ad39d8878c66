import KeepApp
import KeepCLI
import KeepPorts

/// `keep completions bash|zsh|fish`: the shell's completion script, generated from the
/// command table, so a command added to it is completed too.
enum CompletionsCommand {
    static let command = Command(
        "completions", summary: "Print the shell completion script for bash, zsh or fish",
        help: """
            The script completes every command, subcommand and option, the settings' keys, the key slots \
            and the namespaces; chat ids are asked of keep itself (keep chats --ids) as you press Tab. \
            scripts/install puts each shell's script where that shell looks for it.
            """,
        examples: [
            "source <(keep completions bash)": "Complete keep in this bash session:",
            "keep completions zsh > ~/.zfunc/_keep": "Install it for zsh, in a directory on fpath, before compinit:",
            "keep completions fish | source": "Complete keep in this fish session:",
        ],
        arguments: ArgumentParser(required: [shells]), run: run)

    /// The placeholder of the shell, which also says which there are.
    private static var shells: String { ShellCompletions.Shell.allCases.map(\.rawValue).joined(separator: "|") }

    static func run(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        guard let shell = ShellCompletions.Shell(rawValue: name) else {
            throw CommandFailure.usage("there is no completion script for \"\(name)\": give one of \(shells)")
        }
        invocation.console.out(script(shell))
    }

    /// The script for `shell`, from the whole command table.
    static func script(_ shell: ShellCompletions.Shell) -> String {
        ShellCompletions.script(shell, CompletionNode.nodes(Keep.root, values: values))
    }

    /// What each value's placeholder completes to, where its spelling does not say
    /// (`markdown|json` offers its two words by itself).
    static var values: [String: ValueCompletion] {
        [
            "ID": .keepOutput(["chats", "--ids"]),
            "SLOT": .words(SecretSlot.allCases.map(\.rawValue)),
            "KEY": .words(SettingRegistry.defs.map(\.key)),
            "NAMESPACE": .words(Namespace.allCases.map(\.rawValue)),
            "FILE": .files,
            "PATH": .files,
            HelpCommand.topicOrCommand: .words(CommandTable.commands.map(\.name) + HelpTopics.all.map(\.name)),
        ]
    }
}
