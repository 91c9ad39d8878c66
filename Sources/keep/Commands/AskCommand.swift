import KeepApp
import KeepCLI
import KeepCore
import KeepReports

/// `keep ask`: one question, one answer, recorded; for scripts and quick questions.
enum AskCommand {
    static let chatOption = ArgumentParser.Option(
        "--chat", value: "ID", help: "ask in the chat ID (or the one chat whose id starts with ID)")
    static let continueOption = ArgumentParser.Option(
        "--continue", "-c", help: "ask in the chat answered most recently (not with --chat)")

    static let command = Command(
        "ask", summary: "Ask one question and print the answer as it streams",
        help: """
            The question is TEXT. Text piped in as well (`cat notes.txt | keep ask "summarize"`) is sent after
            it, between <stdin> and </stdin> lines; with no TEXT, what is piped in is the question itself.
            Standard input is read only when it is not a terminal, and at most 1 MiB of it. The answer goes
            to standard output, the chat's id to standard error. Without --chat or -c the question starts a
            new chat. The turn is recorded when the answer is complete; if it is not (an error, Ctrl-C), the
            question is kept as the chat's draft and keep exits 1.
            """,
        arguments: ArgumentParser(
            options: [chatOption, continueOption] + TurnFlags.all
                + [
                    ChatsCommand.json.described(
                        "print one JSON object when the answer is complete, instead of streaming")
                ],
            rest: "TEXT"),
        run: run)

    static func run(_ invocation: Invocation) async throws {
        let arguments = invocation.arguments
        if arguments.has(chatOption.name) && arguments.has(continueOption.name) {
            throw CommandFailure.usage("give --chat ID or -c, not both")
        }
        if let id = arguments.value(chatOption.name), id.isEmpty {
            throw CommandFailure.usage("--chat needs a chat id")
        }
        let console = invocation.console
        let question = try readQuestion(arguments, console: console)

        let core = try await invocation.core()
        let options = try TurnFlags.options(arguments, settings: core.settings)
        let composition = invocation.composition
        let engine = try await invocation.engine(for: core)
        TurnFlags.warnIfIgnored(options, engine: engine, console: console)
        let runner = try await composition.turns(on: engine)
        var id: String?
        if let typed = arguments.value(chatOption.name) { id = try await invocation.chatId(typed) }
        if arguments.has(continueOption.name) {
            guard let recent = try await runner.chatToContinue() else { throw TurnError.noChatToContinue }
            if let instead = recent.instead { console.warning(instead) }
            id = recent.id
        }
        let session = try await runner.begin(question, in: id)
        let json = invocation.json
        if !json { console.showError("\(Console.field(await session.id))\n") }

        let printer = AnswerPrinter(console, raw: arguments.has(TurnFlags.raw.name))
        let answering = Task { () async throws(TurnError) -> Chat in
            try await runner.answer(question, in: session, options: options) { if !json { printer.print($0) } }
        }
        // Ctrl-C cancels the answer; the question stays as the chat's draft.
        let interrupts = Interrupts { answering.cancel() }
        defer { withExtendedLifetime(interrupts) {} }
        let result = await answering.result
        printer.finishLine()
        let chat = try result.get()
        if json { try invocation.printJSON(AskReport(chat)) }
    }

    /// The question: TEXT with any piped text joined after it, or, with no TEXT, standard
    /// input itself. Standard input is read only when it is not a terminal or no TEXT is given.
    private static func readQuestion(_ arguments: ParsedArguments, console: Console) throws(CommandFailure) -> String {
        var question = arguments.positionals.joined(separator: " ")
        if arguments.positionals.isEmpty {
            if console.inputIsTerminal {
                console.err("(type the question, then Ctrl-D on a line of its own)\n")
            }
            question = try console.readInput(limit: PipedInput.limit, tooLarge: PipedInput.tooLarge)
            while question.last?.isNewline == true { question.removeLast() }
        } else if !console.inputIsTerminal {
            let piped = try console.readInput(limit: PipedInput.limit, tooLarge: PipedInput.tooLarge)
            question = PipedInput.joined(question: question, piped: piped)
        }
        guard !question.allSatisfy(\.isWhitespace) else {
            throw .usage("nothing to ask: give the question as TEXT or on standard input")
        }
        return question
    }
}
