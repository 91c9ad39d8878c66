import KeepApp
import KeepCLI

/// `keep help [COMMAND [SUBCOMMAND] | TOPIC]`: the same help as `--help`, a topic's, or the
/// whole manual as a man page.
enum HelpCommand {
    static let man = ArgumentParser.Option(
        "--man", help: "print the whole manual as a man page (roff), as docs/keep.1 holds it")

    static let command = Command(
        "help", summary: "Show help for keep, for one command, or on a topic",
        help: "The topics: \(HelpTopics.all.map(\.name).joined(separator: ", ")).",
        examples: [
            "keep help chats search": "Show the help of one subcommand, as keep chats search --help does:",
            "keep help files": "Read where keep keeps your chats, settings and keys:",
            "keep help --man | man -l -": "Read the whole manual without installing it:",
        ],
        arguments: ArgumentParser(options: [man], optional: [topicOrCommand, "SUBCOMMAND"]), run: run)

    /// The first positional's placeholder: a command's name or a topic's.
    static let topicOrCommand = "COMMAND|TOPIC"

    static func run(_ invocation: Invocation) async throws {
        if invocation.arguments.has(man.name) {
            guard invocation.arguments.positionals.isEmpty else {
                throw CommandFailure.usage("--man prints the whole manual: give it no COMMAND")
            }
            return invocation.console.out(Manual.page)
        }
        guard let name = invocation.positional(0) else {
            invocation.console.out(Keep.overview)
            return
        }
        guard var command = CommandTable.commands.first(where: { $0.name == name }) else {
            guard let topic = HelpTopics.all.first(where: { $0.name == name }), invocation.positional(1) == nil
            else {
                throw CommandFailure.usage("unknown command or topic \"\(name)\"")
            }
            return invocation.console.out(Help.text(topic))
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
