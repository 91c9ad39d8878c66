import Foundation
import KeepApp
import KeepCLI
import KeepChatIndex
import KeepCore
import KeepFileStore
import KeepPorts
import KeepReports
import KeepTerminal

/// `keep chats`: list, show, remove and search the chats.
enum ChatsCommand {
    static let json = ArgumentParser.Option("--json", help: "print JSON instead of text")
    static let ids = ArgumentParser.Option(
        "--ids", help: "print only the ids, one a line, newest first: for scripts and shell completion")

    static let command = Command(
        "chats", summary: "List your chats, newest first (unreadable ones too, with why)",
        help: "Each line: id, last update, message count, title. A chat that cannot be read is listed with the "
            + "reason and left as it is.",
        examples: [
            "keep chats": "List the chats:",
            "keep chats --json | jq -r '.chats[].title'": "Print every chat's title:",
        ],
        arguments: ArgumentParser(options: [json, ids]),
        subcommands: [show, remove, search, rename, export, importing, SealCommands.seal, SealCommands.unseal],
        run: list)

    static let format = ArgumentParser.Option(
        "--format", value: "markdown|json", help: "Markdown (the default), or keep's JSON to import elsewhere")

    static let rename = Command(
        "rename", summary: "Give a chat a new title",
        examples: [
            "keep chats rename 20250614-1530 rivers of Europe": "Give a chat the title \"rivers of Europe\":"
        ],
        arguments: ArgumentParser(required: ["ID", "TITLE"], rest: "TITLE"), run: renameChat)

    static let export = Command(
        "export", summary: "Print a chat as Markdown (the default) or as keep's JSON, to import elsewhere",
        examples: [
            "keep chats export 20250614-1530 > rivers.md": "Write a chat as Markdown to a file:",
            "keep chats export 20250614-1530 --format json > rivers.json":
                "Write it as keep's JSON, to import on another machine:",
        ],
        arguments: ArgumentParser(options: [format], required: ["ID"]), run: exportChat)

    static let importing = Command(
        "import", summary: "Add a chat from keep's JSON (`keep chats export ID --format json`)",
        help: "Never writes over a chat: when a chat or draft has the file's id, the chat gets a new id. "
            + "FILE `-` reads standard input.",
        examples: [
            "keep chats import rivers.json": "Add the chat a JSON export holds:"
        ],
        arguments: ArgumentParser(options: [json], required: ["FILE"]), run: importChat)

    static let show = Command(
        "show", summary: "Print one chat, and its unanswered question if it has one",
        examples: [
            "keep chats show 20250614-1530": "Print a chat, named by any start of its id that only it has:"
        ],
        arguments: ArgumentParser(options: [json], required: ["ID"]),
        run: showChat)

    static let remove = Command(
        "rm", summary: "Remove chats and their drafts",
        examples: [
            "keep chats rm 20250614-1530": "Remove a chat and its unanswered question:",
            "keep chats rm 20250614-1530 20250615-0900": "Remove two chats at once:",
        ],
        arguments: ArgumentParser(required: ["ID"], rest: "ID"), run: removeChats)

    static let search = Command(
        "search", summary: "Find the chats whose messages contain TEXT (ignoring case), with the matching line",
        examples: [
            "keep chats search danube": "Find every message that mentions the Danube:"
        ],
        arguments: ArgumentParser(options: [json], required: ["TEXT"], rest: "TEXT"),
        run: searchChats)

    // MARK: - List

    static func list(_ invocation: Invocation) async throws {
        let chats = ChatRepository(storage: try await storage(invocation))
        if invocation.arguments.has(ids.name) { return try await listIds(invocation, chats) }
        let listing: ChatSummaryListing
        let draftIds: [String]
        do {
            listing = try await index(invocation).listing()
            draftIds = try await chats.draftIds()
        } catch {
            throw CommandFailure.failure("cannot list the chats: \(error)")
        }
        if invocation.json {
            // Tens of thousands of chats: written as the report is made, never held whole.
            return ChatsReport.writeJSON(listing, draftIds: draftIds) { invocation.console.out($0) }
        }
        let console = invocation.console
        let withDraft = Set(draftIds)
        let draftOnly = ChatsReport.draftOnly(listing, draftIds: draftIds)
        if listing.chats.isEmpty && listing.unreadable.isEmpty && draftOnly.isEmpty {
            console.out("No chats yet. Start one with `keep`, or `keep ask TEXT`.\n")
            return
        }
        var text = ""
        for chat in listing.chats {
            let draft = withDraft.contains(chat.id) ? "  (unanswered question)" : ""
            text += "\(Console.field(chat.id))  \(localTime(chat.updated))  \(count(chat.messageCount, "message"))  "
            text += "\(Console.field(chat.title))\(draft)\n"
        }
        for id in draftOnly {
            text += "\(Console.field(id))  new chat; its first question is still unanswered\n"
        }
        for chat in listing.unreadable {
            text += "\(Console.field(chat.id))  UNREADABLE: \(Console.field(chat.reason))\n"
        }
        console.show(text)
    }

    /// `--ids`: every chat's id and every new chat's (one whose first question waits), in
    /// reverse order of id (newest first, keep's ids starting with the time), read from the
    /// store's listing alone: fast enough for a shell completing as you press Tab.
    private static func listIds(_ invocation: Invocation, _ chats: ChatRepository) async throws {
        if invocation.json { throw CommandFailure.usage("give --ids or --json, not both") }
        let all: Set<String>
        do {
            all = Set(try await storage(invocation).listIds(.chats)).union(try await chats.draftIds())
        } catch {
            throw CommandFailure.failure("cannot list the chats: \(error)")
        }
        invocation.console.show(all.sorted(by: >).map { $0 + "\n" }.joined())
    }

    // MARK: - Show

    /// The chat the first positional names (its id, or a unique start of it), as read: `nil`
    /// when there is none; a chat that cannot be read is the command's failure.
    private static func namedChat(
        _ invocation: Invocation
    ) async throws -> (id: String, chats: ChatRepository, chat: Chat?) {
        let id = try await invocation.chatId(invocation.positional(0) ?? "")
        let chats = ChatRepository(storage: try await storage(invocation))
        do {
            return (id, chats, try await chats.read(id))
        } catch {
            throw CommandFailure.because(error)
        }
    }

    /// `keep chats show ID`: the chat's head, then its messages as they are read (a chat of
    /// any length is printed a message at a time, holding only its stored text: see
    /// ``/KeepCore/ChatRepository/stream(_:head:message:)``), then its unanswered question.
    /// `--json` prints the whole chat as one object.
    static func showChat(_ invocation: Invocation) async throws {
        if invocation.json {
            let (id, chats, chat) = try await namedChat(invocation)
            let draft = try await draft(of: id, in: chats, chatIsThere: chat != nil, invocation)
            guard let chat = chat ?? draft.map({ _ in Chat(id: id, created: ChatIdTime.date(of: id) ?? Date()) }) else {
                throw CommandFailure.failure("there is no chat \(StorageError.quoted(id)); `keep chats` lists them")
            }
            return try invocation.printJSON(ChatReport(chat, draft: draft))
        }
        let id = try await invocation.chatId(invocation.positional(0) ?? "")
        let chats = ChatRepository(storage: try await storage(invocation))
        let console = invocation.console
        // As the answers showed in the chat, on a terminal: rendered, keep's `> ` distinct from a quote.
        let mode =
            console.outputIsTerminal
            ? AnswerPrinter.Mode.choose(
                outputIsTerminal: true, noColor: console.noColor, raw: false, width: console.columns) : nil
        let shown: Bool
        // The messages' text, written out a chunk at a time rather than a write a message.
        var pending: [UInt8] = []
        pending.reserveCapacity(Self.showChunk)
        do {
            defer { if !pending.isEmpty { console.out(pending) } }
            shown = try await chats.stream(
                id, head: { chat, count in showHead(chat, messages: count, console) },
                message: { message in
                    if let mode {
                        pending += Transcript.text(of: CollectionOfOne(message), mode: mode, note: origin(of:)).utf8
                    } else {
                        pending +=
                            TerminalText.neutralised(
                                message.role == .user ? "\n> \(quoted(message.text))\n" : "\(message.text)\n"
                            ).utf8
                        if let origin = origin(of: message) {
                            pending += TerminalText.neutralised("  (\(origin))\n").utf8
                        }
                    }
                    if pending.count >= Self.showChunk {
                        console.out(pending)
                        pending.removeAll(keepingCapacity: true)
                    }
                })
        } catch {
            throw CommandFailure.because(error)
        }
        let draft = try await draft(of: id, in: chats, chatIsThere: shown, invocation)
        if !shown {
            // A new chat that is only its draft: begun when its id says (the draft keeps no time).
            guard draft != nil else {
                throw CommandFailure.failure("there is no chat \(StorageError.quoted(id)); `keep chats` lists them")
            }
            showHead(Chat(id: id, created: ChatIdTime.date(of: id) ?? Date()), messages: 0, console)
        }
        if let draft {
            let mode = AnswerPrinter.Mode.choose(
                outputIsTerminal: console.outputIsTerminal, noColor: console.noColor, raw: false, width: console.columns
            )
            console.out(
                "\n"
                    + (mode == .raw
                        ? "> \(TerminalText.neutralised(quoted(draft)))\n" : Transcript.question(draft, mode: mode))
                    + TerminalText.neutralised(
                        "(unanswered: `keep ask --chat \(Console.field(id))` asks it again, as does Enter in "
                            + "`keep chat \(Console.field(id))`)\n"
                    ))
        }
    }

    /// The draft of the chat `id`; one that cannot be read is said as a warning when the chat
    /// itself is there (and shown all the same), else it is the command's failure.
    private static func draft(
        of id: String, in chats: ChatRepository, chatIsThere: Bool, _ invocation: Invocation
    ) async throws -> String? {
        do throws(ChatError) {
            return try await chats.draft(for: id)
        } catch  where error.code == .unreadableDraft && chatIsThere {
            invocation.console.warning(error.description)
            return nil
        } catch {
            throw CommandFailure.because(error)
        }
    }

    /// The lines above a chat's messages: its title, id, how many messages, when updated, and
    /// its system prompt.
    private static func showHead(_ chat: Chat, messages count: Int, _ console: Console) {
        console.show(
            "\(chat.title.isEmpty ? "(untitled)" : Console.field(chat.title))\n\(Console.field(chat.id)) · "
                + Self.count(count, "message")
                + (count == 0 ? "" : " · updated \(localTime(chat.updated))") + "\n")
        if let system = chat.system, !system.isEmpty { console.show("system prompt: \(quoted(system))\n") }
    }

    // MARK: - Remove

    /// `keep chats rm ID...`: each chat named (an id or a unique start of one) removed with
    /// its draft, under one hold of the store's lock. One that is not there, or cannot be
    /// removed, is said on its own line and the others are removed all the same; the
    /// command then exits 1.
    static func removeChats(_ invocation: Invocation) async throws {
        let chats = ChatRepository(storage: try await storage(invocation))
        let held = try await invocation.composition.storeLock().acquire()
        defer { held.release() }
        let console = invocation.console
        var failed = false
        for typed in invocation.arguments.positionals {
            do {
                let id = try await invocation.chatId(typed)
                try await removeChat(id, chats, invocation)
                console.show("Removed chat \(Console.field(id)).\n")
            } catch {
                guard case .failure(let message) = error else { throw error }
                console.error(message)
                failed = true
            }
        }
        if failed { throw CommandFailure.silent }
    }

    /// Removes the chat `id` and its draft; a failure saying why when there is neither, or
    /// they cannot be removed.
    private static func removeChat(
        _ id: String, _ chats: ChatRepository, _ invocation: Invocation
    ) async throws(CommandFailure) {
        let existed: Bool
        let hadDraft: Bool
        do {
            hadDraft = try await chats.hasDraft(for: id)
            existed = try await chats.delete(id)
        } catch {
            throw .failure("cannot remove chat \(StorageError.quoted(id)): \(error)")
        }
        guard existed || hadDraft else {
            throw .failure("there is no chat \(StorageError.quoted(id)); `keep chats` lists them")
        }
        // A removed chat is no longer the one to go back to.
        do {
            try await invocation.composition.kept(creating: false).chats.chatRemoved(id)
        } catch {
            invocation.console.warning("the last open chat is left as it is: \(error)")
        }
    }

    // MARK: - Rename, export, import

    static func renameChat(_ invocation: Invocation) async throws {
        let id = try await invocation.chatId(invocation.positional(0) ?? "")
        let title = invocation.arguments.positionals.dropFirst().joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty, !title.contains(where: \.isNewline) else {
            throw CommandFailure.usage("a title is one line of text")
        }
        let chats = ChatRepository(storage: try await storage(invocation))
        let held = try await invocation.composition.storeLock().acquire()
        defer { held.release() }
        do {
            guard var chat = try await chats.read(id) else {
                throw CommandFailure.failure(
                    "there is no chat \(StorageError.quoted(id)) to rename; `keep chats` lists them")
            }
            chat.title = title
            try await chats.save(chat)
        } catch let error as ChatError {
            throw CommandFailure.failure("cannot rename chat \(StorageError.quoted(id)): \(error)")
        }
        invocation.console.show("Chat \(Console.field(id)) is now \(StorageError.quoted(title)).\n")
    }

    static func exportChat(_ invocation: Invocation) async throws {
        let kind = invocation.arguments.value(format.name) ?? "markdown"
        guard kind == "markdown" || kind == "json" else {
            throw CommandFailure.usage("--format is markdown or json")
        }
        let (id, chats, chat) = try await namedChat(invocation)
        guard let chat else {
            throw CommandFailure.failure("there is no chat \(StorageError.quoted(id)); `keep chats` lists them")
        }
        do {
            // On a terminal or in a file: JSON escapes what a terminal would obey, Markdown shows
            // it as visible stand-ins (the answer's OSC 52 is text in a .md, never a clipboard write).
            if kind == "json" {
                invocation.console.json(try chats.exportText(chat))
            } else {
                invocation.console.show(ChatMarkdown.text(of: chat))
            }
        } catch {
            throw CommandFailure.because(error)
        }
    }

    /// The most bytes `keep chats import` reads: far more than any chat keep writes.
    static let importLimit = 64 << 20

    static func importChat(_ invocation: Invocation) async throws {
        let path = invocation.positional(0) ?? ""
        let text: String
        if path == "-" {
            text = try invocation.console.readInput(
                limit: importLimit, tooLarge: "standard input holds more than \(importLimit >> 20) MiB: not a chat")
        } else {
            text = try readFile(path)
        }
        let chats = ChatRepository(storage: try await storage(invocation))
        let held = try await invocation.composition.storeLock().acquire()
        defer { held.release() }
        let imported: ImportedChat
        do {
            imported = try await chats.importChat(text)
        } catch {
            throw CommandFailure.failure("cannot import \(StorageError.quoted(path)): \(error)")
        }
        let chat = imported.chat
        // Said on standard error, so that --json stays one object.
        switch imported.newId {
        case .notKeepsForm?:
            invocation.console.showError(
                "The file's chat id \(Console.field(StorageError.quoted(imported.idInFile))) is not of the form keep "
                    + "makes (like 20250614-153012-3fa9c1), so the chat was given a new id: \(chat.id).\n")
        case .taken?:
            invocation.console.showError(
                "A chat or draft already has the file's id \(Console.field(imported.idInFile)), so the chat was given "
                    + "a new id: \(chat.id).\n")
        case nil:
            break
        }
        if invocation.json { return try invocation.printJSON(ChatReport(chat, draft: nil)) }
        invocation.console.show(
            "Imported chat \(chat.id): \(Console.field(chat.title)) (\(count(chat.messages.count, "message"))).\n")
    }

    /// The text of the file at `path`, at most ``importLimit`` bytes of UTF-8 (`what` it
    /// should be, for the refusals).
    ///
    /// Only a regular file (or a link to one) is read: a FIFO, a device (`/dev/zero` never
    /// ends) or a socket is refused, by what it is, before it is opened; and no more than
    /// one byte past the limit is read, whatever the file says its size is.
    static func readFile(_ path: String, what: String = "a keep chat") throws(CommandFailure) -> String {
        let named = "\(StorageError.quoted(path))"
        let kind: FileKind?
        do {
            kind = try FileKind.of(path, following: true)
        } catch {
            throw .failure("cannot read \(named): \(error)")
        }
        guard let kind else { throw .failure("there is no file \(named)") }
        guard kind == .regular else {
            throw .failure(
                "\(named) is \(kind), not a file: give a file keep "
                    + (what == "a keep chat" ? "exported, or `-` to read standard input" : "wrote"))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .failure("cannot read \(named): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: importLimit + 1) ?? Data()
        } catch {
            throw .failure("cannot read \(named): \((error as NSError).localizedDescription)")
        }
        guard data.count <= importLimit else {
            throw .failure("\(named) is larger than \(importLimit >> 20) MiB: not \(what)")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .failure("\(named) is not UTF-8 text: not \(what)")
        }
        return text
    }

    // MARK: - Search

    static func searchChats(_ invocation: Invocation) async throws {
        let text = invocation.arguments.positionals.joined(separator: " ")
        let chats = ChatRepository(storage: try await storage(invocation))
        let matches: [ChatMatch]
        do {
            matches = try await index(invocation).search(text)
        } catch let error as ChatError where error.code == .emptySearch {
            throw CommandFailure.usage("give some text to search for")
        } catch {
            throw CommandFailure.failure("cannot search the chats: \(error)")
        }
        let report = SearchReport(text: text, matches: matches)
        if invocation.json { return try invocation.printJSON(report) }
        let console = invocation.console
        guard !report.matches.isEmpty else {
            console.show("No chat contains \(StorageError.quoted(text)).\n")
            return
        }
        var lastChat: String?
        for match in report.matches {
            if match.chat != lastChat {
                console.show("\(Console.field(match.chat))  \(Console.field(match.title))\n")
                lastChat = match.chat
            }
            console.show("  \(match.role == "user" ? ">" : " ") \(match.line)\n")
        }
    }

    // MARK: - Helpers

    /// The store; one that cannot be opened ends the command with the crash screen, and
    /// chats out of reach (sealed, the keyring locked) with the one line that says so.
    static func storage(_ invocation: Invocation) async throws(CommandFailure) -> any StampedStorage {
        try await invocation.requireChats()
        do {
            return try await invocation.composition.storage()
        } catch {
            throw .bootFailed(.storageUnavailable, detail: error.description)
        }
    }

    /// Which model at which server gave an answer, and the tokens counted: `qwen3 at
    /// http://…/v1 · 9 prompt + 2 completion tokens`; `nil` when nothing of it is known.
    static func origin(of message: ChatMessage) -> String? {
        var parts: [String] = []
        if let model = message.model {
            parts.append(Console.field(model) + (message.server.map { " at \(Console.field($0))" } ?? ""))
        }
        if let usage = message.usage {
            parts.append("\(usage.promptTokens) prompt + \(usage.completionTokens) completion tokens")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// The chat index beside the store (a cache; see ``ChatIndex``), sealed as the chats are.
    static func index(_ invocation: Invocation) async throws(CommandFailure) -> ChatIndex {
        let storage = try await storage(invocation)
        do {
            return ChatIndex(
                root: try invocation.composition.dataRoot(), storage: storage,
                sealing: try await invocation.composition.chatIndexing(), progress: indexingProgress(invocation))
        } catch {
            throw .bootFailed(.storageUnavailable, detail: error.description)
        }
    }

    /// How far a long indexing got, in place on a terminal once it has run past a second
    /// (`indexing chats: 12,000 of 40,000`), the line erased when it is done; nothing on a pipe.
    static func indexingProgress(_ invocation: Invocation) -> (@Sendable (Int, Int) -> Void)? {
        let console = invocation.console
        guard console.errorIsTerminal else { return nil }
        let started = ContinuousClock.now
        return { done, total in
            guard ContinuousClock.now - started > .seconds(1) else { return }
            let line = "indexing chats: \(SealCommands.grouped(done)) of \(SealCommands.grouped(total))"
            console.err("\r\u{1B}[K" + (done < total ? line : ""))
        }
    }

    static func count(_ number: Int, _ noun: String) -> String {
        Plural.of(number, noun)
    }

    /// A time as a person reads it here: `2025-06-14 15:30`, local time. `localtime_r`,
    /// because a listing formats one per chat and the calendar is many times slower.
    static func localTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return UTCTime.text(date) }
        func padded(_ number: Int32, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2)) "
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2))"
    }

    /// How much of a shown chat is written at once: 64 KiB.
    static let showChunk = 64 << 10

    /// A question shown after `> `, its later lines indented to match: two spaces after each
    /// newline, byte by byte (a chat's every question passes through here when it is shown).
    static func quoted(_ text: String) -> String {
        let newline = UInt8(ascii: "\n")
        let utf8 = text.utf8
        let breaks = utf8.reduce(0) { $0 + ($1 == newline ? 1 : 0) }
        guard breaks > 0 else { return text }
        return String(unsafeUninitializedCapacity: utf8.count + 2 * breaks) { out in
            var count = 0
            for byte in utf8 {
                out[count] = byte
                count += 1
                if byte == newline {
                    out[count] = UInt8(ascii: " ")
                    out[count + 1] = UInt8(ascii: " ")
                    count += 2
                }
            }
            return count
        }
    }
}
