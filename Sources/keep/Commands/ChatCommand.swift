import KeepApp
import KeepCLI
import KeepConversation
import KeepCore
import KeepEngines

/// `keep` and `keep chat [ID]`: the interactive chat.
enum ChatCommand {
    static let command = Command(
        "chat", summary: "Chat interactively; what plain `keep` does",
        help: """
            Opens a new chat, or the chat ID (or the one chat whose id starts with ID). Type a question and
            press Enter; the answer prints as it streams, its Markdown rendered and wrapped to the terminal
            (--raw, or NO_COLOR, shows it as it came). Each completed question and answer is saved at once.
            -c (also `keep -c`) continues the chat answered last.
            """ + "\n\n" + InteractiveChat.commandsHelp(),
        examples: [
            "keep": "Open a new chat:",
            "keep -c": "Go on with the chat answered last:",
            "keep chat 20250614-1530": "Go on with a chat, named by any start of its id that only it has:",
            "keep chat -s claude -r coder": "Chat with the server claude, in the role coder:",
        ],
        arguments: ArgumentParser(options: [AskCommand.continueOption] + TurnFlags.all, optional: ["ID"]), run: run)

    static func run(_ invocation: Invocation) async throws {
        let core = try await invocation.core()
        try await invocation.requireChats()
        let composition = invocation.composition
        let book = await composition.serverBook(core)
        let (options, choice) = try TurnFlags.turn(invocation.arguments, core: core, book: book)
        let engine = try await invocation.engine(for: core, choice: choice)
        let runner = try await composition.turns(on: engine)
        var chat = InteractiveChat(
            console: invocation.console, runner: runner, engine: engine, history: try await history(invocation, core),
            raw: invocation.arguments.has(TurnFlags.raw.name))
        chat.options = options
        chat.book = book
        chat.switchTo = { choice in
            let named = TurnChoice(server: choice.server, model: choice.model, role: choice.role, named: true)
            let engine = try await invocation.engine(for: core, choice: named)
            return (engine, try await composition.turns(on: engine))
        }
        TurnFlags.warnIfIgnored(chat.options, engine: engine, console: invocation.console)
        if invocation.arguments.has(AskCommand.continueOption.name), invocation.positional(0) != nil {
            throw CommandFailure.usage("give a chat ID or -c, not both")
        }
        var typed = invocation.positional(0)
        if invocation.arguments.has(AskCommand.continueOption.name) {
            guard let recent = try await runner.chatToContinue() else { throw TurnError.noChatToContinue }
            if let instead = recent.instead { invocation.console.warning(instead) }
            typed = recent.id
        }
        if let typed {
            let id = try await invocation.chatId(typed)
            let opened: Bool
            do {
                opened = try await chat.open(id)
            } catch {
                throw CommandFailure.because(error)
            }
            guard opened else {
                throw CommandFailure.failure("there is no chat \"\(id)\"; `keep chats` lists them")
            }
        } else {
            let existing = (try? await composition.storage().listIds(.chats).count) ?? 0
            // Kept data that cannot be opened or read only leaves the hint out.
            let lastOpen = try? await composition.kept(creating: false).chats.lastOpenChat()
            let sealing = try? await composition.chatSealing()
            chat.greet(
                existingChats: existing, lastOpen: lastOpen ?? nil, sealing: sealing.map { "Chats: \($0.summary)." })
        }
        await chat.run()
        // The chat open at the end is the one to offer next time.
        if let id = chat.current {
            do {
                try await composition.kept().chats.setLastOpenChat(id)
            } catch {
                invocation.console.warning("the last open chat is not kept: \(error)")
            }
        }
    }

    /// Where the lines typed are kept, or `nil` when the setting chatHistory is off (the
    /// history is then removed, so turning history off forgets it).
    private static func history(_ invocation: Invocation, _ core: AppCore) async throws -> QuestionHistory? {
        let history = QuestionHistory(
            storage: try await invocation.composition.storage(), root: try invocation.composition.dataRoot())
        guard core.settings.value(SettingRegistry.chatHistory.key)?.bool == false else { return history }
        do {
            try await history.remove()
        } catch {
            invocation.console.warning("\(error)")
        }
        return nil
    }
}
