import Foundation
import KeepApp
import KeepCore
import KeepPorts

/// The interactive chat loop: a prompt, answers printed as they stream, slash commands,
/// Ctrl-C that stops an answer without quitting, Ctrl-D or `/quit` that quits.
///
/// Every question goes through the ``TurnRunner``: it is the chat's draft while its answer
/// streams, and the turn is saved the moment the answer is complete. A question whose
/// answer did not complete (an error, Ctrl-C) is offered again: Enter on an empty line
/// asks it. When standard input is not a terminal, each line is a question, with no
/// prompt, and what is said about the chat goes to standard error.
struct InteractiveChat {
    let console: Console
    let runner: TurnRunner
    let engine: any ChatEngine
    /// The chat questions go to; `nil` until a new chat's first question claims an id.
    private(set) var current: String?
    /// The question of the current chat that waits for an answer.
    private(set) var draft: String?
    /// What the questions are asked with: `-m`, `--system` and the like, then `/model` and `/system`.
    var options = TurnOptions()

    init(console: Console, runner: TurnRunner, engine: any ChatEngine) {
        self.console = console
        self.runner = runner
        self.engine = engine
    }

    /// The slash commands, for `/help` and `keep chat --help`.
    static let commandsHelp = """
          /new       start a new chat         /chats     list your chats
          /open ID   switch to the chat ID    /help      list these commands
          /quit      quit (or Ctrl-D)
          /model [NAME]   show or change the model asked from now on
          /system [TEXT]  show the system prompt, or give this chat its own from the next question
        Ctrl-C while an answer streams stops it and keeps the question as the chat's draft (press
        Enter on an empty line to ask it again); Ctrl-C at the prompt clears the line.
        """

    private var prompt: String { console.inputIsTerminal ? "> " : "" }

    /// A line about the chat, not part of an answer: on standard output for a person at
    /// the terminal, on standard error when the input is a script.
    private func say(_ text: String) {
        // Titles, ids and messages came from disk and from servers: neutralised.
        let text = TerminalText.neutralised(text)
        if console.inputIsTerminal { console.out(text + "\n") } else { console.err(text + "\n") }
    }

    /// What a new chat opens with, including how to start, and the chat the user had open
    /// last (`lastOpen`), when one is kept.
    func greet(existingChats: Int, lastOpen: String? = nil) {
        say("keep · \(engineName) · new chat")
        if existingChats == 0 {
            say("No chats yet: type a question and press Enter to start one. /help lists commands; Ctrl-D quits.")
        } else {
            say(
                "Type a question to start a new chat, /chats to list your \(Plural.of(existingChats, "chat")), /open ID to go "
                    + "back to one. /help lists commands; Ctrl-D quits.")
            if let lastOpen { say("Your last open chat was \(lastOpen): /open \(lastOpen) goes back to it.") }
        }
    }

    private var engineName: String {
        guard let remote = engine as? RemoteEngine else { return "echo engine (offline)" }
        return "remote engine: \(options.engine.model ?? remote.model) at \(remote.displayURL)"
    }

    /// Reads and handles lines until end of input or `/quit`.
    mutating func run() async {
        let console = console
        let prompt = prompt
        let atPrompt: @Sendable () -> Void = {
            // The terminal already threw away the line being typed.
            console.out("\n(Ctrl-D or /quit to quit)\n\(prompt)")
        }
        let interrupts = Interrupts(atPrompt)
        var lines = LineInput().lines.makeAsyncIterator()
        while true {
            console.out(prompt)
            guard let line = await lines.next() else {
                if console.inputIsTerminal { console.out("\n") }
                return
            }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty {
                if let draft { await ask(draft, interrupts: interrupts, atPrompt: atPrompt) }
            } else if text.hasPrefix("/") {
                guard await command(text) else { return }
            } else {
                await ask(line, interrupts: interrupts, atPrompt: atPrompt)
            }
        }
    }

    /// Handles a slash command; `false` to quit.
    private mutating func command(_ text: String) async -> Bool {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch words[0] {
        case "/quit", "/exit":
            return false
        case "/help":
            say(Self.commandsHelp)
        case "/new":
            current = nil
            draft = nil
            say("New chat: ask away.")
        case "/chats":
            await listChats()
        case "/open" where words.count == 2:
            do {
                if try await !open(words[1]) {
                    say("There is no chat \(StorageError.quoted(words[1])); /chats lists them.")
                }
            } catch {
                console.error("\(error)")
            }
        case "/open":
            say("usage: /open ID (/chats lists the ids)")
        case "/model", "/system":
            await turnOption(words[0], text.dropFirst(words[0].count).trimmingCharacters(in: .whitespaces))
        default:
            say("Unknown command \(words[0]); /help lists them.")
        }
        return true
    }

    /// Switches to the chat `typed` names (its id, or a unique start of it) and shows where it stands; `false`, changing nothing, when
    /// there is no such chat. Throws when the chat cannot be read.
    mutating func open(_ typed: String) async throws(ChatError) -> Bool {
        let id = try await runner.chats.resolve(typed) ?? typed
        let chat = try await runner.chats.read(id)
        var waiting: String?
        do throws(ChatError) {
            waiting = try await runner.chats.draft(for: id)
        } catch .unreadableDraft(let draft) where chat != nil {
            // The draft's problem: the chat opens all the same.
            console.error(ChatError.unreadableDraft(draft).description)
        }
        guard chat != nil || waiting != nil else { return false }
        current = id
        draft = waiting
        let messages = chat?.messages ?? []
        say("keep · \(engineName) · chat \(id): \(chat?.title ?? "new") (\(Plural.of(messages.count, "message")))")
        if let question = messages.last(where: { $0.role == .user }),
            let answer = messages.last(where: { $0.role == .assistant })
        {
            say("> \(question.text)\n\(answer.text)")
        }
        if let waiting {
            say("Unanswered question: \(StorageError.quoted(waiting)). Press Enter to ask it again, or type another.")
        }
        return true
    }

    private func listChats() async {
        let listing: ChatListing
        do {
            listing = try await runner.chats.scan()
        } catch {
            console.error("cannot list the chats: \(error)")
            return
        }
        if listing.chats.isEmpty && listing.unreadable.isEmpty {
            say("No chats yet.")
        }
        for chat in listing.chats.prefix(20) {
            let mark = chat.id == current ? "*" : " "
            say("\(mark) \(chat.id)  \(ChatsCommand.localTime(chat.updated))  \(chat.title)")
        }
        if listing.chats.count > 20 { say("  … and \(listing.chats.count - 20) more (keep chats lists all)") }
        for chat in listing.unreadable {
            say("  \(chat.id)  UNREADABLE: \(chat.reason)")
        }
    }

    /// Asks `question` in the current chat (a new one when there is none yet) and prints
    /// the answer as it streams; Ctrl-C cancels it.
    private mutating func ask(
        _ question: String, interrupts: Interrupts, atPrompt: @escaping @Sendable () -> Void
    ) async {
        let runner = runner
        let session: ChatSession
        do {
            session = try await runner.begin(question, in: current)
        } catch {
            console.error("\(error)")
            return
        }
        current = await session.id
        draft = nil
        let printer = AnswerPrinter(console)
        let options = options
        let answering = Task { () async throws(TurnError) -> Chat in
            try await runner.answer(question, in: session, options: options) { printer.print($0) }
        }
        interrupts.onInterrupt { answering.cancel() }
        let result = await answering.result
        interrupts.onInterrupt(atPrompt)
        printer.finishLine()
        guard case .failure(let error) = result else { return }
        draft = question
        if case TurnError.engine(let cause, _) = error, cause.code == .cancelled {
            say("(stopped; the question is kept as this chat's draft: press Enter to ask it again)")
        } else {
            console.error("\(error)")
            say("(press Enter to ask it again)")
        }
    }

    /// `/model` and `/system`: with `value`, what the next questions are asked with; without,
    /// what it is now.
    private mutating func turnOption(_ command: String, _ value: String) async {
        if command == "/model" {
            guard !value.isEmpty else {
                let setting = (engine as? RemoteEngine)?.model
                say("Model: \(options.engine.model ?? setting ?? "none (the echo engine has no models)")")
                return
            }
            options.engine.model = value
            say("The next questions ask the model \(TerminalText.neutralised(value)).")
            return
        }
        guard !value.isEmpty else {
            var chat = Chat(id: "", created: Date())
            if let current, let stored = try? await runner.chats.read(current) { chat = stored }
            let prompt = options.systemPrompt(for: chat)
            say(prompt.map { "System prompt: \($0)" } ?? "No system prompt.")
            return
        }
        options.system = value
        say("The next questions are asked with that system prompt; it is kept as the chat's own.")
    }
}
