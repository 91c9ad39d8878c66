import Foundation
import KeepApp
import KeepConversation
import KeepCore
import KeepEngines
import KeepPorts
import KeepReports
import KeepTerminal

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
    private(set) var runner: TurnRunner
    private(set) var engine: any ChatEngine
    /// The servers, aliases and roles `/server`, `/model` and `/role` choose from; `nil` for none.
    var book: ServerBook?
    /// Builds the engine and the turn runner for another server (`/server`); `nil` when
    /// the chat cannot switch.
    var switchTo: (@Sendable (TurnChoice) async throws -> (any ChatEngine, TurnRunner))?
    /// Where the lines typed are kept across launches; `nil` when history is off.
    let history: QuestionHistory?
    /// Whether answers are shown as they came rather than rendered (`--raw`).
    let raw: Bool
    /// The chat questions go to; `nil` until a new chat's first question claims an id.
    private(set) var current: String?
    /// The question of the current chat that waits for an answer.
    private(set) var draft: String?
    /// What the questions are asked with: `-m`, `--system` and the like, then `/model` and `/system`.
    var options = TurnOptions()

    init(
        console: Console, runner: TurnRunner, engine: any ChatEngine, history: QuestionHistory? = nil,
        raw: Bool = false
    ) {
        self.console = console
        self.runner = runner
        self.engine = engine
        self.history = history
        self.raw = raw
    }

    /// A line of its own that opens and closes a question of many lines.
    static let multiLineMark = "\"\"\""

    /// The slash commands and the keys, for `/help` and `keep chat --help`, wrapped to
    /// `width` columns: one command a line, the summaries in a column as far right as the
    /// longest command with its arguments needs, a long summary continuing under itself.
    static func commandsHelp(width: Int = 80) -> String {
        let names = slashCommands.map { $0.arguments.isEmpty ? $0.name : "\($0.name) \($0.arguments)" }
        let column = (names.map(\.count).max() ?? 0) + 4
        let rows = zip(names, slashCommands).map { name, command in
            TextWrap.wrapped(
                "  " + name.padding(toLength: column - 2, withPad: " ", startingAt: 0) + command.summary, width: width,
                hang: column)
        }
        let keys = TextWrap.wrapped(
            "Keys: Left/Right, Home/End (Ctrl-A/Ctrl-E), Alt-B/Alt-F or Ctrl-Left/Right a word at a time, "
                + "Ctrl-K/Ctrl-U delete to the end/start, Ctrl-W the word before; Up/Down go through the lines "
                + "you typed (kept across launches unless the setting chatHistory is false), Ctrl-R searches "
                + "them (Enter takes the line found, Escape or Ctrl-G leaves the search). A paste is one "
                + "question, newlines and all. A line of \(multiLineMark) starts a question of many lines and "
                + "another ends it. Start a line with // (or a space) to ask a question that begins with /. "
                + "Ctrl-C while an answer streams stops it and keeps the question as the chat's draft (press "
                + "Enter on an empty line to ask it again); Ctrl-C at the prompt clears the line.", width: width)
        return rows.joined(separator: "\n") + "\n" + keys
    }

    private var prompt: String { console.inputIsTerminal ? "> " : "" }
    private var continuationPrompt: String { console.inputIsTerminal ? "… " : "" }

    /// A line about the chat, not part of an answer: on standard output for a person at
    /// the terminal (word-wrapped to its width), on standard error when the input is a script.
    private func say(_ text: String) {
        // Titles, ids and messages came from disk and from servers: neutralised.
        let text = TerminalText.neutralised(text)
        if console.inputIsTerminal { console.out(console.fitted(text) + "\n") } else { console.err(text + "\n") }
    }

    /// What a new chat opens with, including how to start, and the chat the user had open
    /// last (`lastOpen`), when one is kept.
    func greet(existingChats: Int, lastOpen: String? = nil, sealing: String? = nil) {
        say("keep · \(engineName) · new chat")
        if let sealing { say(sealing) }
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
        guard let endpoint = engine.endpoint else { return "\(engine.id) engine (offline)" }
        let role = options.role.map { " · role \($0)" } ?? ""
        return "\(engine.id) engine: \(options.engine.model ?? endpoint.model) at \(endpoint.server) "
            + "(server \(endpoint.name))\(role)"
    }

    /// Reads and handles lines until end of input or `/quit`.
    mutating func run() async {
        let console = console
        let input = await LineInput(
            editing: console.inputIsTerminal && console.outputIsTerminal, history: history, console: console)
        let prompt = prompt
        // Without the line editor the terminal throws away the line being typed on Ctrl-C;
        // with it, Ctrl-C at the prompt is a key the editor handles, never a signal.
        let editing = input.isEditing
        let atPrompt: @Sendable () -> Void = {
            if !editing { console.out("\n(Ctrl-D or /quit to quit)\n\(prompt)") }
        }
        let interrupts = Interrupts(atPrompt)
        while true {
            guard let entry = await nextEntry(input) else {
                if console.inputIsTerminal { console.out("\n") }
                return
            }
            switch entry {
            case .askDraft:
                if let draft { await ask(draft, interrupts: interrupts, atPrompt: atPrompt) }
            case .question(let question):
                await ask(question, interrupts: interrupts, atPrompt: atPrompt)
            case .command(let text):
                guard await command(text) else { return }
            case .nothing:
                continue
            }
        }
    }

    /// What a line typed at the prompt asks for.
    enum Entry: Equatable {
        case question(String)
        case command(String)
        /// An empty line: ask the draft again, if there is one.
        case askDraft
        /// Nothing to do (a line thrown away with Ctrl-C).
        case nothing

        /// The meaning of `line`, as typed: a line starting with `/` is a command, except
        /// that `//` asks a question starting with `/` (one slash dropped) and so does a line
        /// whose first non-space is `/` (the spaces dropped); anything else is a question,
        /// exactly as typed.
        static func of(_ line: String) -> Entry {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return .askDraft }
            if line.hasPrefix("//") { return .question(String(line.dropFirst())) }
            if line.hasPrefix("/") { return .command(trimmed) }
            if trimmed.hasPrefix("/") { return .question(String(line.drop(while: \.isWhitespace))) }
            return .question(line)
        }
    }

    /// The next entry typed; `nil` at the end of input. A line of `"""` gathers the lines up
    /// to the next such line into one question; each line typed is remembered for the history.
    private func nextEntry(_ input: LineInput) async -> Entry? {
        switch await nextLine(input, prompt: prompt) {
        case .end:
            return nil
        case .interrupted:
            say("(Ctrl-D or /quit to quit)")
            return .nothing
        case .line(let line) where line.trimmingCharacters(in: .whitespaces) == Self.multiLineMark:
            var lines: [String] = []
            while true {
                switch await nextLine(input, prompt: continuationPrompt) {
                case .end:
                    return nil
                case .interrupted:
                    say("(the question of many lines was thrown away; Ctrl-D or /quit to quit)")
                    return .nothing
                case .line(let line) where line.trimmingCharacters(in: .whitespaces) == Self.multiLineMark:
                    let question = lines.joined(separator: "\n")
                    guard !question.allSatisfy(\.isWhitespace) else { return .nothing }
                    await input.remember(question)
                    return .question(question)
                case .line(let line):
                    lines.append(line)
                }
            }
        case .line(let line):
            if !line.allSatisfy(\.isWhitespace) { await input.remember(line) }
            return Entry.of(line)
        }
    }

    private func nextLine(_ input: LineInput, prompt: String) async -> LineInput.Event {
        if !input.isEditing { console.out(prompt) }
        return await input.next(prompt: prompt)
    }

    /// One slash command: its name, what it takes, what it does. `run` answers `false` to quit.
    struct SlashCommand: Sendable {
        let name: String
        var aliases: [String] = []
        var arguments = ""
        let summary: String
        let run: @Sendable (inout InteractiveChat, [String]) async -> Bool
    }

    /// The slash commands, in the order `/help` lists them: the one table of what they do.
    static let slashCommands: [SlashCommand] = [
        SlashCommand(name: "/new", summary: "start a new chat") { chat, _ in
            chat.current = nil
            chat.draft = nil
            chat.say("New chat: ask away.")
            return true
        },
        SlashCommand(name: "/chats", summary: "list your chats") { chat, _ in
            await chat.listChats()
            return true
        },
        SlashCommand(name: "/open", arguments: "ID", summary: "switch to the chat ID") { chat, words in
            guard words.count == 2 else {
                chat.say("usage: /open ID (/chats lists the ids)")
                return true
            }
            do {
                if try await !chat.open(words[1]) {
                    chat.say("There is no chat \(StorageError.quoted(words[1])); /chats lists them.")
                }
            } catch {
                chat.console.error("\(error)")
            }
            return true
        },
        SlashCommand(name: "/model", arguments: "[NAME]", summary: "show or change the model asked from now on") {
            chat, words in
            await chat.turnOption("/model", words.dropFirst().joined(separator: " "))
            return true
        },
        SlashCommand(name: "/server", arguments: "[NAME]", summary: "show the servers, or ask NAME from now on") {
            chat, words in
            await chat.chooseServer(words.count > 1 ? words[1] : nil)
            return true
        },
        SlashCommand(name: "/role", arguments: "[NAME]", summary: "show the roles, or ask in NAME from now on") {
            chat, words in
            await chat.chooseRole(words.count > 1 ? words[1] : nil)
            return true
        },
        SlashCommand(
            name: "/system", arguments: "[TEXT]",
            summary: "show the system prompt, or give this chat its own from the next question"
        ) { chat, words in
            await chat.turnOption("/system", words.dropFirst().joined(separator: " "))
            return true
        },
        SlashCommand(name: "/help", summary: "list these commands") { chat, _ in
            chat.say(InteractiveChat.commandsHelp(width: chat.console.columns ?? 80))
            return true
        },
        SlashCommand(name: "/quit", aliases: ["/exit"], summary: "quit (or Ctrl-D)") { _, _ in false },
    ]

    /// Handles a slash command; `false` to quit.
    private mutating func command(_ text: String) async -> Bool {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let name = words.first,
            let command = Self.slashCommands.first(where: { $0.name == name || $0.aliases.contains(name) })
        else {
            say(Self.unknownCommand(words.first ?? text))
            return true
        }
        return await command.run(&self, words)
    }

    /// What is said of a line that starts with an unknown command `name`: where the name
    /// looks like a path (a `/` after its first character: `/etc/hosts:`), how to ask a
    /// question that starts with one.
    static func unknownCommand(_ name: String) -> String {
        guard name.dropFirst().contains("/") else { return "Unknown command \(name); /help lists them." }
        return "Unknown command \(name); to ask a question that starts with a path, begin the line with // "
            + "(/\(name) …) or a space. /help lists the commands."
    }

    /// Switches to the chat `typed` names (its id, or a unique start of it) and shows where it stands; `false`, changing nothing, when
    /// there is no such chat. Throws when the chat cannot be read.
    mutating func open(_ typed: String) async throws(ChatError) -> Bool {
        let id = try await runner.chats.resolve(typed) ?? typed
        let chat = try await runner.chats.read(id)
        var waiting: String?
        do throws(ChatError) {
            waiting = try await runner.chats.draft(for: id)
        } catch  where error.code == .unreadableDraft && chat != nil {
            // The draft's problem: the chat opens all the same.
            console.error(error.description)
        }
        guard chat != nil || waiting != nil else { return false }
        current = id
        draft = waiting
        let messages = chat?.messages ?? []
        say("keep · \(engineName) · chat \(id): \(chat?.title ?? "new") (\(Plural.of(messages.count, "message")))")
        showEarlierTurns(messages, of: id)
        if let waiting {
            say("Unanswered question: \(StorageError.quoted(waiting)). Press Enter to ask it again, or type another.")
        }
        return true
    }

    /// How many of a reopened chat's last turns are shown.
    static let turnsShownOnOpen = 3

    /// The last turns of the chat `id` reopened: on a terminal, as the answers showed
    /// (``Transcript``), with a line saying how many earlier messages are not shown; to a
    /// script, the last question and answer, neutralised, on standard error.
    private func showEarlierTurns(_ messages: [ChatMessage], of id: String) {
        let turns = messages.filter { $0.role != .system }
        guard console.inputIsTerminal && console.outputIsTerminal else {
            if let question = turns.last(where: { $0.role == .user }),
                let answer = turns.last(where: { $0.role == .assistant })
            {
                say("> \(question.text)\n\(answer.text)")
            }
            return
        }
        let shown = turns.suffix(2 * Self.turnsShownOnOpen)
        if shown.count < turns.count {
            say(
                "(\(Plural.of(turns.count - shown.count, "earlier message")) not shown: keep chats show \(id) "
                    + "prints them all)")
        }
        let mode = AnswerPrinter.Mode.choose(
            outputIsTerminal: true, noColor: console.noColor, raw: raw, width: console.columns)
        console.out(Transcript.text(of: shown.drop(while: { $0.role != .user }), mode: mode) + "\n")
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
        // Keys typed while the answer streams are not echoed into it; they wait for the prompt.
        let quiet = console.inputIsTerminal && console.outputIsTerminal ? QuietTerminal() : nil
        defer { quiet?.restore() }
        let printer = AnswerPrinter(console, raw: raw)
        printer.waiting()
        let options = options
        let console = console
        let answering = interrupts.cancelling { () async throws(TurnError) -> Chat in
            try await runner.answer(
                question, in: session, options: options,
                leftOut: { count in
                    printer.finishLine()
                    console.note(TurnFlags.leftOutLine(count))
                }
            ) { printer.print($0) }
        }
        let result = await answering.result
        interrupts.onInterrupt(atPrompt)
        printer.finishLine()
        guard case .failure(let error) = result else { return }
        if case TurnError.chatRemoved = error {
            // Nothing to ask again there: the next question starts a new chat.
            console.error("\(error)")
            current = nil
            say("(the next question starts a new chat)")
            return
        }
        draft = question
        if case TurnError.engine(let cause, _) = error, cause.code == .cancelled {
            say("(stopped; the question is kept as this chat's draft: press Enter to ask it again)")
        } else {
            console.error(CommandAdvice.line(for: error))
            say("(press Enter to ask it again)")
        }
    }

    /// `/model` and `/system`: with `value`, what the next questions are asked with; without,
    /// what it is now.
    private mutating func turnOption(_ command: String, _ value: String) async {
        if command == "/model" {
            guard !value.isEmpty else {
                let setting = engine.endpoint?.model
                say("Model: \(options.engine.model ?? setting ?? "none (the \(engine.id) engine has no models)")")
                return
            }
            // An alias or SERVER/MODEL moves to that server too.
            if let book, let choice = try? book.choose(server: nil, model: value, role: nil), choice.named {
                guard await switchServer(choice) else { return }
                options.engine.model = choice.model
                say("The next questions ask \(engineName).")
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

    /// `/server`: with `name`, asks that server from now on (its own model); without, lists
    /// the servers, the one asked marked.
    private mutating func chooseServer(_ name: String?) async {
        guard let book else {
            say("No servers to choose from.")
            return
        }
        guard let name else {
            let asked = engine.endpoint?.name
            for server in book.servers {
                say(
                    "\(server.name == asked ? "*" : " ") \(server.name)  \(server.wire.rawValue)  \(server.model)  \(server.url)"
                )
            }
            return
        }
        let choice: TurnChoice
        do {
            choice = try book.choose(server: name, model: nil, role: nil)
        } catch {
            console.error(error.message)
            return
        }
        guard await switchServer(choice) else { return }
        options.engine.model = nil
        say("The next questions ask \(engineName).")
    }

    /// `/role`: with `name`, asks in that role from now on (its system prompt, kept as the
    /// chat's own, and its model and temperature when it has them); without, lists the roles.
    private mutating func chooseRole(_ name: String?) async {
        guard let book else {
            say("No roles to choose from.")
            return
        }
        guard let name else {
            let roles = book.profiles.roles
            if roles.isEmpty { say("No roles yet: keep roles add NAME --system TEXT makes one.") }
            for role in roles {
                say("\(role.name == options.role ? "*" : " ") \(role.name)  \(role.system)")
            }
            return
        }
        let choice: TurnChoice
        do {
            let asked = engine.endpoint?.name
            choice = try book.choose(server: nil, model: nil, role: name)
            if choice.named, choice.server.name != asked {
                guard await switchServer(choice) else { return }
            }
        } catch {
            console.error("\(error)")
            return
        }
        guard let role = choice.role else { return }
        options.role = role.name
        options.system = role.system
        if let model = choice.model { options.engine.model = model }
        if let temperature = role.temperature { options.engine.temperature = temperature }
        say(
            "The next questions are asked in the role \(role.name) (\(engineName)); its system prompt is kept as the chat's own."
        )
    }

    /// Moves the chat to `choice`'s server; `false`, saying why, when it cannot.
    private mutating func switchServer(_ choice: TurnChoice) async -> Bool {
        guard let switchTo else {
            say("This chat cannot change servers.")
            return false
        }
        do {
            (engine, runner) = try await switchTo(choice)
            return true
        } catch {
            console.error("\(error)")
            return false
        }
    }
}
