import KeepApp
import KeepCLI

/// `keep help [COMMAND [SUBCOMMAND]]`: the same help as `--help`.
enum HelpCommand {
    static let command = Command(
        "help", summary: "Show help for keep or for one command",
        arguments: ArgumentParser(optional: ["COMMAND", "SUBCOMMAND"]), run: run)

    static func run(_ invocation: Invocation) async throws {
        guard let name = invocation.positional(0) else {
            invocation.console.out(Keep.overview)
            return
        }
        guard var command = CommandTable.commands.first(where: { $0.name == name }) else {
            throw CommandFailure.usage("unknown command \"\(name)\"")
        }
        if let subName = invocation.positional(1) {
            guard let sub = command.subcommands.first(where: { $0.name == subName }) else {
                throw CommandFailure.usage("\(name) has no subcommand \"\(subName)\"")
            }
            command = sub
        }
        invocation.console.out(command.helpText)
    }
}
