import KeepApp
import KeepCLI
import KeepConversation
import KeepCore
import KeepPorts
import KeepReports

/// `keep ask`: one question, one answer, recorded; for scripts and quick questions.
enum AskCommand {
    static let chatOption = ArgumentParser.Option(
        "--chat", value: "ID", help: "ask in the chat ID (or the one chat whose id starts with ID)")
    static let continueOption = ArgumentParser.Option(
        "--continue", "-c", help: "ask in the chat answered most recently (not with --chat)")
    static let file = ArgumentParser.Option(
        "--file", "-f", value: "PATH", help: "join the text file PATH to the question, with its name (repeatable)",
        repeatable: true)
    static let attach = ArgumentParser.Option(
        "--attach", "-a", value: "PATH",
        help: "send the image PATH (PNG, JPEG, GIF, WebP) with the question (repeatable)",
        repeatable: true)
    static let extract = ArgumentParser.Option(
        "--extract", "-x", help: "print only the answer's fenced code blocks (the whole answer is still kept)")

    static let command = Command(
        "ask", summary: "Ask one question and print the answer as it streams",
        help: """
            The question is TEXT. Text piped in as well (`cat notes.txt | keep ask "summarize"`) is sent after
            it, between <stdin> and </stdin> lines; with no TEXT, what is piped in is the question itself.
            Standard input is read only when it is not a terminal, and at most 1 MiB of it. Each -f file is
            joined after that between <file name="PATH"> and </file> lines (1 MiB of text in all; a binary file,
            a directory or a FIFO is refused before anything is sent); each -a image goes as the server's image
            part, and is kept with the question so the chat sends it again later. The answer goes
            to standard output, the chat's id to standard error. Without --chat or -c the question starts a
            new chat. The turn is recorded when the answer is complete; if it is not (an error, Ctrl-C), the
            question is kept as the chat's draft and keep exits 1; `keep ask --chat ID` (or -c) with no
            question asks it again.

            Example: keep ask -s claude -f main.swift -x "add error handling" > main.swift.new
            """,
        examples: [
            "keep ask \"why is the sky blue?\"": "Ask in a new chat; the answer streams to standard output:",
            "keep ask -c \"and at sunset?\"": "Ask again in the chat answered last:",
            "git diff | keep ask \"review this change\"": "Send piped text after the question:",
            "keep ask --json \"capital of France?\" | jq -r .answer": "Take the answer from one JSON object:",
        ],
        arguments: ArgumentParser(
            options: [chatOption, continueOption] + TurnFlags.all + [file, attach, extract]
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
        let inChat = arguments.has(chatOption.name) || arguments.has(continueOption.name)
        let given = try readQuestion(arguments, console: console, draftMayAnswer: inChat)
        let attachments: [Attachment]
        do {
            attachments = try QuestionFiles.images(arguments.values(attach.name))
        } catch {
            throw CommandFailure.failure(error.description)
        }

        let core = try await invocation.core()
        try await invocation.requireChats()
        let composition = invocation.composition
        var (options, choice) = try TurnFlags.turn(arguments, core: core, book: await composition.serverBook(core))
        options.attachments = attachments
        let engine = try await invocation.engine(for: core, choice: choice)
        TurnFlags.warnIfIgnored(options, engine: engine, console: console)
        let runner = try await composition.turns(on: engine)
        var id: String?
        if let typed = arguments.value(chatOption.name) { id = try await invocation.chatId(typed) }
        if arguments.has(continueOption.name) {
            guard let recent = try await runner.chatToContinue() else { throw TurnError.noChatToContinue }
            if let instead = recent.instead { console.warning(instead) }
            id = recent.id
        }
        var question = given ?? ""
        if given == nil { question = try await draft(of: id, runner) }
        do {
            question = try QuestionFiles.joined(question: question, paths: arguments.values(file.name))
        } catch {
            throw CommandFailure.failure(error.description)
        }
        let session = try await runner.begin(question, in: id)
        let json = invocation.json
        if !json { console.showError("\(Console.field(await session.id))\n") }

        // On a terminal that shows the answer, nothing typed meanwhile is echoed into it.
        let quiet = console.inputIsTerminal && console.outputIsTerminal && !json ? QuietTerminal() : nil
        defer { quiet?.restore() }
        let printer = AnswerPrinter(console, raw: arguments.has(TurnFlags.raw.name))
        let streams = !json && !arguments.has(extract.name)
        // Ctrl-C cancels the answer; the question stays as the chat's draft.
        let interrupts = Interrupts {}
        defer { withExtendedLifetime(interrupts) {} }
        let answering = interrupts.cancelling { [options] () async throws(TurnError) -> Chat in
            try await runner.answer(
                question, in: session, options: options,
                leftOut: { count in
                    console.note(TurnFlags.leftOutLine(count))
                }
            ) { if streams { printer.print($0) } }
        }
        let result = await answering.result
        printer.finishLine()
        let chat = try result.get()
        if json { try invocation.printJSON(AskReport(chat)) }
        if !json, arguments.has(extract.name) {
            let blocks = CodeBlocks.extract(chat.messages.last?.text ?? "")
            if blocks.isEmpty {
                console.warning("the answer holds no fenced code block; keep chats show \(chat.id) shows it")
            }
            console.show(blocks.joined(separator: "\n"))
        }
    }

    /// The question: TEXT with any piped text joined after it, or, with no TEXT, standard
    /// input itself. Standard input is read only when it is not a terminal or no TEXT is given.
    /// `nil` when no question is given and `draftMayAnswer` (a chat was named: its draft is
    /// the question): with no TEXT on a terminal, nothing is read; with nothing piped either.
    private static func readQuestion(
        _ arguments: ParsedArguments, console: Console, draftMayAnswer: Bool
    ) throws(CommandFailure) -> String? {
        var question = arguments.positionals.joined(separator: " ")
        if arguments.positionals.isEmpty {
            if console.inputIsTerminal {
                if draftMayAnswer { return nil }
                console.err("(type the question, then Ctrl-D on a line of its own)\n")
            }
            question = try console.readInput(limit: PipedInput.limit, tooLarge: PipedInput.tooLarge)
            while question.last?.isNewline == true { question.removeLast() }
            if draftMayAnswer && question.allSatisfy(\.isWhitespace) { return nil }
        } else if !console.inputIsTerminal {
            let piped = try console.readInput(limit: PipedInput.limit, tooLarge: PipedInput.tooLarge)
            question = PipedInput.joined(question: question, piped: piped)
        }
        guard !question.allSatisfy(\.isWhitespace) else {
            throw .usage("nothing to ask: give the question as TEXT or on standard input")
        }
        return question
    }

    /// The unanswered question of the chat `id`, asked again when `keep ask --chat ID` (or
    /// `-c`) is given no question; a usage error when it has none.
    private static func draft(of id: String?, _ runner: TurnRunner) async throws(CommandFailure) -> String {
        guard let id else { throw .usage("nothing to ask: give the question as TEXT or on standard input") }
        let waiting: String?
        do {
            waiting = try await runner.chats.draft(for: id)
        } catch {
            throw .because(error)
        }
        guard let waiting else {
            throw .usage(
                "nothing to ask: chat \(StorageError.quoted(id)) has no unanswered question; give the question as TEXT")
        }
        return waiting
    }
}
