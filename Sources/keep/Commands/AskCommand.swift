import KeepApp
import KeepCore

/// `keep ask`: one question, one answer, recorded; for scripts and quick questions.
enum AskCommand {
    static let chatOption = ArgumentParser.Option("--chat", value: "ID")
    static let continueOption = ArgumentParser.Option("--continue", "-c")

    static let command = Command(
        "ask", summary: "Ask one question and print the answer as it streams",
        usage: "keep ask [--chat ID | -c] [TEXT...]",
        help: """
            The question is TEXT, or standard input when no TEXT is given. The answer goes to standard
            output, the chat's id to standard error. Without --chat or -c the question starts a new chat.
              --chat ID        ask in the chat ID
              -c, --continue   ask in the chat answered most recently
            The turn is recorded when the answer is complete; if it is not (an error, Ctrl-C), the
            question is kept as the chat's draft and keep exits 1.
            """,
        arguments: ArgumentParser(options: [chatOption, continueOption], rest: "TEXT"), run: run)

    static func run(_ invocation: Invocation) async throws {
        let arguments = invocation.arguments
        if arguments.has(chatOption.name) && arguments.has(continueOption.name) {
            throw CommandFailure.usage("give --chat ID or -c, not both")
        }
        if let id = arguments.value(chatOption.name), id.isEmpty {
            throw CommandFailure.usage("--chat needs a chat id")
        }
        let console = invocation.console
        var question = arguments.positionals.joined(separator: " ")
        if arguments.positionals.isEmpty {
            if console.inputIsTerminal {
                console.err("(type the question, then Ctrl-D on a line of its own)\n")
            }
            question = try console.readAllInput()
            while question.last?.isNewline == true { question.removeLast() }
        }
        guard !question.allSatisfy(\.isWhitespace) else {
            throw CommandFailure.usage("nothing to ask: give the question as TEXT or on standard input")
        }

        let core = try await invocation.core()
        let composition = invocation.composition
        let engine = try await invocation.engine(for: core)
        let runner = try await composition.turns(on: engine)
        var id = arguments.value(chatOption.name)
        if arguments.has(continueOption.name) {
            guard let recent = try await runner.chatToContinue() else { throw TurnError.noChatToContinue }
            if let instead = recent.instead { console.warning(instead) }
            id = recent.id
        }
        let session = try await runner.begin(question, in: id)
        console.err("\(await session.id)\n")

        let printer = AnswerPrinter(console)
        let answering = Task { () async throws(TurnError) -> Chat in
            try await runner.answer(question, in: session) { printer.print($0) }
        }
        // Ctrl-C cancels the answer; the question stays as the chat's draft.
        let interrupts = Interrupts { answering.cancel() }
        defer { withExtendedLifetime(interrupts) {} }
        let result = await answering.result
        printer.finishLine()
        _ = try result.get()
    }
}
