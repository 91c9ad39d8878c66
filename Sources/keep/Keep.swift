import KeepApp
import KeepCLI
import KeepReports

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
                return usageFailure(
                    "unknown command \"\(first)\"", usage: Help.usage(line: usage) + "\n" + commandList, console)
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
                error.message, usage: implicit ? Help.usage(line: usage) + "\n" + commandList : usageLines(command),
                console)
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
            console.error(CommandAdvice.line(for: error))
            return 1
        }
    }

    private static func usageFailure(_ message: String, usage: String, _ console: Console) -> Int32 {
        console.error(message)
        console.err(usage + "\n")
        return 2
    }

    private static func usageLines(_ command: Command) -> String {
        Help.usage(command.spec)
    }

    /// The commands, one line each.
    static var commandList: String {
        Help.list(CommandTable.commands.map(\.spec))
    }

    /// What keep is, for `keep --help` and the manual's description.
    static let description = """
        keep is a terminal chat whose conversations survive a crash and whose API keys stay in \
        the keychain. With no command it opens a new chat.
        """

    /// What holds for every command, for `keep --help` and the manual.
    static let notes = """
        Every command takes --help (so does keep help COMMAND); keep --version prints the \
        version. Exit status: 0 success, 1 failure, 2 usage. Data: $XDG_DATA_HOME/keep, else \
        ~/.local/share/keep. Keys: the Secret Service. The guide, with every command and its \
        JSON: docs/keep-guide.md in keep's source; the manual: man keep, once scripts/install \
        has put it in place.
        """

    /// Examples of keep as a whole.
    static let examples = [
        Example("keep", "Open a new chat on the engine the settings choose (echo, offline, at first):"),
        Example("keep ask \"why is the sky blue?\"", "Ask one question; the answer streams to standard output:"),
        Example("keep help files", "Read where keep keeps everything:"),
    ]

    /// keep as a whole, with the table's commands under it: what the manual and the shell
    /// completions are made from (`--version` is an option of its own at the top).
    static var root: CommandSpec {
        CommandSpec(
            name: "keep", path: "keep", summary: description, examples: examples,
            arguments: ArgumentParser(options: [.init("--version", help: "print keep's version")]),
            subcommands: CommandTable.commands.map(\.spec))
    }

    /// What `keep --help` prints.
    static var overview: String {
        Help.overview(
            usage: usage, description: description, commands: CommandTable.commands.map(\.spec),
            topics: HelpTopics.all, notes: notes, examples: examples)
    }
}
