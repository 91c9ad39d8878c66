import KeepApp
import KeepCLI

/// The `keep` command line: finds the command the words name, parses the rest, runs it,
/// and turns the outcome into what is printed and the exit status (0 success, 1 failure,
/// 2 usage).
enum Keep {
    static let usage = "keep [COMMAND] [ARGS...]"

    /// Runs `words` (the arguments after the program name) and answers the exit status.
    static func run(_ words: [String], composition: Composition, console: Console) async -> Int32 {
        var command = CommandTable.chat
        var rest = words[...]
        if let first = words.first {
            if first == "-h" || first == "--help" {
                console.out(overview)
                return 0
            }
            if first == "--version" {
                console.out(VersionCommand.line)
                return 0
            }
            if let named = CommandTable.commands.first(where: { $0.name == first }) {
                command = named
                rest = rest.dropFirst()
            } else if !first.hasPrefix("-") {
                return usageFailure("unknown command \"\(first)\"", usage: "\(usage)\n\(commandList)", console)
            }
        }
        if let first = rest.first, let sub = command.subcommands.first(where: { $0.name == first }) {
            command = sub
            rest = rest.dropFirst()
        }
        let arguments: ParsedArguments
        do {
            arguments = try command.arguments.parse(Array(rest))
        } catch {
            // `keep --bogus`: no command was named, so the usage is keep's own, not `keep chat`'s.
            let implicit = rest.count == words.count
            return usageFailure(
                error.message, usage: implicit ? "\(usage)\n\(commandList)" : usageLines(command), console)
        }
        if arguments.help {
            console.out(command.helpText)
            return 0
        }
        guard let run = command.run else {
            return usageFailure("\(command.name) needs a subcommand", usage: usageLines(command), console)
        }
        do {
            try await run(
                Invocation(command: command, arguments: arguments, composition: composition, console: console))
            return 0
        } catch let failure as CommandFailure {
            switch failure {
            case .failure(let message):
                console.error(message)
                return 1
            case .silent:
                return 1
            case .usage(let message):
                return usageFailure(message, usage: usageLines(command), console)
            case .bootFailed(let reason, let detail):
                console.showError(CrashScreen.text(reason: reason, detail: detail, root: try? composition.dataRoot()))
                return 1
            }
        } catch {
            console.error("\(error)")
            return 1
        }
    }

    private static func usageFailure(_ message: String, usage: String, _ console: Console) -> Int32 {
        console.error(message)
        console.err("usage: \(usage)\n")
        return 2
    }

    private static func usageLines(_ command: Command) -> String {
        ([command.usage] + command.subcommands.map(\.usage)).joined(separator: "\n       ")
    }

    /// The commands, one line each.
    static var commandList: String {
        let width = CommandTable.commands.map(\.name.count).max() ?? 0
        return CommandTable.commands.map {
            "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)"
        }.joined(separator: "\n")
    }

    /// What `keep --help` prints.
    static var overview: String {
        """
        usage: \(usage)

        keep is a terminal chat whose conversations survive a crash and whose API keys stay
        in the keychain. With no command it opens a new chat.

        Commands:
        \(commandList)

        Every command takes --help; keep --version prints the version. Exit status: 0 success,
        1 failure, 2 usage.
        Data: $XDG_DATA_HOME/keep, else ~/.local/share/keep. Keys: the Secret Service.
        The guide, with every command and its JSON: docs/keep-guide.md in keep's source.

        """
    }
}
