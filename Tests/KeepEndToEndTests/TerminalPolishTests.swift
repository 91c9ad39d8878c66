import Foundation
import Synchronization
import Testing

/// The terminal as a person meets it, each defect of issue 27's list pinned on a
/// pseudo-terminal: layout and wrapping to the width, a resize, earlier turns shown as they
/// were, nothing typed echoed into an answer, the history search, and the commands' words.
@Suite("The terminal, polished")
struct TerminalPolishTests {
    static let esc = "\u{1B}"
    static let ctrlC = "\u{03}"
    static let ctrlD = "\u{04}"

    /// The lines of `screen` (the terminal's CRs taken out), escape codes left out, each
    /// with the columns it takes.
    private static func visibleLines(_ screen: String) -> [String] {
        let plain = screen.replacingOccurrences(of: "\r", with: "")
            .replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: "")
        return plain.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// What the terminal showed after byte `offset`.
    private static func shown(_ process: KeepProcess, after offset: Int) -> String {
        String(decoding: Array(process.output.text.utf8).dropFirst(offset), as: UTF8.self)
    }

    // MARK: - Layout

    @Test("/help lists one command a line, the summaries in one column after the longest name, wrapped to the width")
    func helpLayout() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true, columns: 60)
        #expect(await chat.output.wait(for: "> "))
        let mark = chat.output.count
        chat.write("/help\r")
        #expect(await chat.output.wait(for: "Ctrl-C at the prompt clears the line.", after: mark))
        let lines = Self.visibleLines(Self.shown(chat, after: mark))
        let rows = lines.filter { $0.hasPrefix("  /") }
        #expect(
            rows.map { String($0.split(separator: " ")[0]) } == [
                "/new", "/chats", "/open", "/model", "/server", "/role", "/system", "/help", "/quit",
            ])
        let column = try #require(rows.first?.firstRange(of: "start a new chat")?.lowerBound.utf16Offset(in: rows[0]))
        #expect(column == "  /system [TEXT]  ".count, "the column follows the longest name with its arguments")
        for row in rows {
            let summary = row.dropFirst(column)
            #expect(!summary.hasPrefix(" ") && row.prefix(column).hasSuffix("  "), "\(row)")
        }
        #expect(
            lines.contains { $0.hasPrefix(String(repeating: " ", count: column)) },
            "a long summary continues under itself")
        #expect(lines.allSatisfy { $0.count <= 60 }, "\(lines)")
        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))
    }

    @Test("keep's own messages are word-wrapped to the terminal's width, at the prompt and as errors")
    func messagesWrapped() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.ask("one chat so the greeting is the long one")
        let chat = try sandbox.start(["chat"], terminal: true, columns: 40)
        #expect(await chat.output.wait(for: "Ctrl-D quits."))
        #expect(await chat.output.wait(for: "> "))
        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))
        let greeting = Self.visibleLines(chat.output.text)
        #expect(greeting.count > 3, "the greeting took several lines: \(greeting)")
        #expect(greeting.allSatisfy { $0.count <= 40 }, "\(greeting)")

        let failed = try await sandbox.runOnTerminal("chat", "20200101-000000-000000", columns: 40)
        #expect(failed.status == .exited(1))
        let error = Self.visibleLines(failed.screen).filter { !$0.isEmpty }
        #expect(error.first?.hasPrefix("keep: there is no chat") == true, "\(error)")
        #expect(error.count > 1 && error.allSatisfy { $0.count <= 40 }, "\(error)")
        #expect(error.dropFirst().allSatisfy { $0.hasPrefix("      ") }, "later lines sit under the message")
    }

    @Test("a window resized while an answer streams re-wraps the answer from the next line on")
    func resizeRewraps() async throws {
        let gate = Gate()
        defer { gate.open() }
        let words = (1...30).map { "word\($0)" }.joined(separator: " ")
        let server = try LoopbackServer(LoopbackServer.streaming([words + "\n", words + "\n"], gate: gate, before: 1))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let chat = try sandbox.start(["chat"], terminal: true, columns: 80)
        #expect(await chat.output.wait(for: "> "))
        let mark = chat.output.count
        chat.write("a long answer please\r")
        #expect(await chat.output.wait(for: "word30", after: mark), "the first paragraph is shown")
        try chat.resize(columns: 40)
        let resized = chat.output.count
        gate.open()
        #expect(await chat.output.wait(for: "word30", after: resized))
        #expect(await chat.quitAtThePrompt(after: "word30"))
        #expect(await chat.exit() == .exited(0))
        let lines = Self.visibleLines(Self.shown(chat, after: mark)).filter { $0.hasPrefix("word") }
        let split = try #require(lines.firstIndex { $0.hasSuffix("word30") })
        #expect(lines[...split].contains { $0.count > 40 }, "before the resize, the old width: \(lines)")
        #expect(lines[(split + 1)...].allSatisfy { $0.count <= 40 }, "after it, the new width: \(lines)")
        #expect(lines[(split + 1)...].count >= 5, "\(lines)")
    }

    // MARK: - Earlier turns

    static let quotingAnswer = "> a quoted line\n\nand **bold** words\n"

    @Test("a reopened chat shows its earlier turns rendered: an answer's > quote is a bar, keep's own > mark is bold")
    func reopenRenders() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming([Self.quotingAnswer]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let id = try await sandbox.ask("what do they say?")
        let other = try await sandbox.ask("another chat")

        for opening in ["keep chat ID", "/open ID"] {
            let chat = try sandbox.start(opening == "/open ID" ? ["chat", other] : ["chat", id], terminal: true)
            var mark = 0
            if opening == "/open ID" {
                #expect(await chat.output.wait(for: "another chat (2 messages)"))
                #expect(await chat.output.wait(for: "words\r\n"))
                #expect(await chat.output.wait(for: "> ", after: Self.end(of: "words\r\n", in: chat)))
                mark = chat.output.count
                chat.write("/open \(id)\r")
            }
            #expect(await chat.output.wait(for: "what do they say? (2 messages)", after: mark), "\(opening)")
            #expect(await chat.output.wait(for: "words\r\n", after: mark))
            let screen = Self.shown(chat, after: mark)
            #expect(
                screen.contains("\(Self.esc)[1m>\(Self.esc)[0m what do they say?"),
                "\(opening): \(screen.debugDescription)")
            #expect(screen.contains("│\(Self.esc)[0m a quoted line"), "the answer's quote is a bar")
            #expect(!screen.contains("> a quoted line"), "no answer line starts with keep's mark")
            #expect(screen.contains("\(Self.esc)[1mbold\(Self.esc)[0m words"), "its Markdown is rendered")
            #expect(await chat.output.wait(for: "> ", after: Self.end(of: "words\r\n", in: chat)))
            chat.write(Self.ctrlD)
            #expect(await chat.exit() == .exited(0))
        }
    }

    /// The byte offset just past the last `needle` the terminal showed.
    private static func end(of needle: String, in process: KeepProcess) -> Int {
        let text = process.output.text
        return text.range(of: needle, options: .backwards).map { text[..<$0.upperBound].utf8.count } ?? 0
    }

    @Test("chats show on a terminal renders the answers as the chat did; to a pipe it prints them as stored")
    func chatsShowRenders() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming([Self.quotingAnswer]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let id = try await sandbox.ask("what do they say?")
        let shown = try await sandbox.runOnTerminal("chats", "show", id)
        #expect(shown.status == .exited(0))
        #expect(
            shown.screen.contains("\(Self.esc)[1m>\(Self.esc)[0m what do they say?"), "\(shown.screen.debugDescription)"
        )
        #expect(shown.screen.contains("│\(Self.esc)[0m a quoted line"))
        #expect(!shown.screen.contains("> a quoted line"))
        #expect(shown.screen.contains("(test-model at \(server.baseURL))"), "the model that answered, under it")

        let piped = try await sandbox.run("chats", "show", id)
        #expect(piped.stdout.contains("\n> what do they say?\n> a quoted line\n\nand **bold** words\n"), "\(piped)")
    }

    // MARK: - Nothing echoed into an answer

    /// A server whose first answer stops half way until `gate` opens; every other question
    /// is answered `answer to QUESTION` at once.
    private static func halfWayServer(_ gate: Gate) throws -> LoopbackServer {
        let first = Mutex(true)
        return try LoopbackServer(
            LoopbackServer.openAI { request, responder in
                let question = (request.json?["messages"] as? [[String: String]])?.last?["content"] ?? ""
                responder.beginEvents()
                let isFirst = first.withLock { value in
                    defer { value = false }
                    return value
                }
                if isFirst {
                    responder.content("partial ")
                    gate.wait()
                }
                responder.content("answer to \(question)")
                responder.done()
            })
    }

    @Test("keys typed while an answer streams are not echoed into it, nor is Ctrl-C's ^C; they wait at the next prompt")
    func nothingEchoedWhileStreaming() async throws {
        let gate = Gate()
        defer { gate.open() }
        let sandbox = try Sandbox()
        try await sandbox.useRemote(try Self.halfWayServer(gate))
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "> "))
        let mark = chat.output.count
        chat.write("the slow one\r")
        #expect(await chat.output.wait(for: "partial", after: mark))
        #expect(chat.terminalEchoes == false, "the terminal echoes nothing while the answer streams")
        chat.write("typed ahead")
        chat.write(Self.ctrlC)
        #expect(await chat.output.wait(for: "(stopped;", after: mark))
        let streamed = try #require(Self.shown(chat, after: mark).components(separatedBy: "(stopped;").first)
        #expect(!streamed.contains("^C") && !streamed.contains("typed ahead"), "\(streamed.debugDescription)")
        #expect(await chat.output.wait(for: "> typed ahead", after: mark), "the keys typed wait at the prompt")
        chat.write(" then asked\r")
        #expect(await chat.output.wait(for: "answer to typed ahead then asked", after: mark))
        #expect(await chat.quitAtThePrompt(after: "answer to typed ahead then asked"))
        #expect(await chat.exit() == .exited(0))
    }

    @Test("keep ask on a terminal: Ctrl-C during the answer stops it without echoing ^C, and the terminal is put back")
    func askEchoesNoControlCharacters() async throws {
        let gate = Gate()
        defer { gate.open() }
        let sandbox = try Sandbox()
        try await sandbox.useRemote(try Self.halfWayServer(gate))
        let ask = try sandbox.start(["ask", "the slow one"], terminal: true)
        #expect(await ask.output.wait(for: "partial"))
        #expect(ask.terminalEchoes == false)
        ask.write(Self.ctrlC)
        #expect(await ask.exit() == .exited(1))
        let screen = await ask.output.waitForEnd()
        #expect(ask.terminalEchoes == true, "the terminal echoes again once keep is done")
        #expect(!screen.contains("^C"), "\(screen.debugDescription)")
        #expect(screen.contains("partial"), "the check reads what the answer showed")
    }

    // MARK: - The history search

    @Test(
        "Ctrl-R's prompt says it is a search; Escape and Ctrl-G leave it with the line as it was, Enter asks the line found"
    )
    func historySearch() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "> "))
        chat.write("the very first question\r")
        #expect(await chat.output.wait(for: "echo: the very first question"))
        #expect(await chat.quitAtThePrompt(after: "echo: the very first question"))
        #expect(await chat.exit() == .exited(0))

        let searching = try sandbox.start(["chat"], terminal: true)
        #expect(await searching.output.wait(for: "> "))
        for leave in ["\u{1B}", "\u{07}"] {
            let mark = searching.output.count
            searching.write("draft")
            searching.write("\u{12}very")
            #expect(await searching.output.wait(for: "(history search: very) the very first question", after: mark))
            let found = searching.output.count
            searching.write(leave)
            #expect(await searching.output.wait(for: "> draft", after: found), "left with the line as it was")
            searching.write("\u{15}")
        }
        var mark = searching.output.count
        searching.write("\u{12}nothing like it")
        #expect(await searching.output.wait(for: "(history search, none found: nothing like it)", after: mark))
        mark = searching.output.count
        searching.write("\u{1B}")
        #expect(await searching.output.wait(for: "> ", after: mark), "Escape is known alone, and leaves")
        mark = searching.output.count
        searching.write("\u{12}first\r")
        #expect(await searching.output.wait(for: "echo: the very first question", after: mark), "Enter asks it")
        #expect(await searching.quitAtThePrompt(after: "echo: the very first question"))
        #expect(await searching.exit() == .exited(0))
    }

    // MARK: - Commands' words

    @Test("an unknown /command that looks like a path says how to ask it with //; one that does not, only /help")
    func slashHint() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true, columns: 200)
        #expect(await chat.output.wait(for: "> "))
        chat.write("/etc/hosts: what is it for?\r")
        #expect(
            await chat.output.wait(
                for: "Unknown command /etc/hosts:; to ask a question that starts with a path, begin the line with // "
                    + "(//etc/hosts: …) or a space."))
        let mark = chat.output.count
        chat.write("/bogus\r")
        #expect(await chat.output.wait(for: "Unknown command /bogus; /help lists them.", after: mark))
        #expect(await chat.output.wait(for: "\n> ", after: mark))
        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))
        #expect(!Self.shown(chat, after: mark).contains("//"), "no hint for a name that is not a path")
    }

    @Test("keep --bogus prints keep's own usage and its commands, not keep chat's; keep chat --bogus prints chat's")
    func unknownOptionUsage() async throws {
        let sandbox = try Sandbox()
        let bogus = try await sandbox.runOnTerminal("--bogus")
        #expect(bogus.status == .exited(2))
        #expect(
            bogus.screen.contains("keep: unknown option --bogus\nusage: keep [COMMAND] [ARGS...]\n"), "\(bogus.screen)")
        #expect(bogus.screen.contains("  chats "), "the commands are listed")
        #expect(!bogus.screen.contains("keep chat ["), "\(bogus.screen)")
        let chat = try await sandbox.runOnTerminal("chat", "--bogus")
        #expect(chat.status == .exited(2))
        #expect(chat.screen.contains("usage: keep chat ["), "the command named has its own usage: \(chat.screen)")
        let valid = try await sandbox.run(["--raw"], input: "hello\n")
        #expect(valid.status == .exited(0) && valid.stdout == "echo: hello\n", "chat's options still work: \(valid)")
    }

    @Test(
        "keep chats rm takes several ids: each is removed, one not there is said and exits 1, the rest removed all the same"
    )
    func removeSeveral() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.ask("first")
        let second = try await sandbox.ask("second")
        let kept = try await sandbox.ask("kept")
        let removed = try await sandbox.runOnTerminal("chats", "rm", first, "20200101-000000-000000", second)
        #expect(removed.status == .exited(1))
        #expect(removed.screen.contains("Removed chat \(first).\n"), "\(removed.screen)")
        #expect(removed.screen.contains("keep: there is no chat \"20200101-000000-000000\""))
        #expect(removed.screen.contains("Removed chat \(second).\n"), "the one after the missing one too")
        let left = try await sandbox.run("store", "ls", "chats").stdout
        #expect(left == "\(kept)\n", "\(left)")
        let both = try await sandbox.run("chats", "rm", kept)
        #expect(both.status == .exited(0) && both.stdout == "Removed chat \(kept).\n", "one id still works: \(both)")
    }

    // MARK: - Drafts

    /// A server that refuses the first `failures` questions with a 500, and answers the rest.
    private static func failingFirst(_ failures: Int) throws -> LoopbackServer {
        let left = Mutex(failures)
        return try LoopbackServer(
            LoopbackServer.openAI { request, responder in
                let refused = left.withLock { count in
                    defer { count -= 1 }
                    return count > 0
                }
                if refused {
                    return responder.send(status: 500, body: "{\"error\":{\"message\":\"down for now\"}}")
                }
                let question = (request.json?["messages"] as? [[String: String]])?.last?["content"] ?? ""
                responder.beginEvents()
                responder.content("answer to \(question)")
                responder.done()
            })
    }

    /// The draft-only chats `keep chats --json` lists.
    private static func drafts(_ sandbox: Sandbox) async throws -> [String] {
        let listed = try await sandbox.run("chats", "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        return try #require(report["drafts"] as? [String])
    }

    @Test(
        "a failed first question leaves one unanswered new chat, reused when it is asked again, at the prompt or by keep ask"
    )
    func oneDraftPerFailedChat() async throws {
        let server = try Self.failingFirst(4)
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        for _ in 0..<2 {
            let chat = try sandbox.start(["chat"], terminal: true)
            #expect(await chat.output.wait(for: "> "))
            let mark = chat.output.count
            chat.write("the same question\r")
            #expect(await chat.output.wait(for: "(press Enter to ask it again)", after: mark))
            #expect(await chat.output.wait(for: "\n> ", after: mark))
            chat.write(Self.ctrlD)
            #expect(await chat.exit() == .exited(0))
        }
        #expect(try await sandbox.run("ask", "the same question").status == .exited(1))
        let drafts = try await Self.drafts(sandbox)
        #expect(drafts.count == 1, "the same question asked three times is one new chat: \(drafts)")
        #expect(try await sandbox.run("ask", "another question").status == .exited(1))
        #expect(try await Self.drafts(sandbox).count == 2, "a different question is a chat of its own")

        let answered = try await sandbox.run("ask", "the same question")
        #expect(answered.status == .exited(0), "\(answered)")
        #expect(answered.chatId == drafts.first, "answered in the chat it had begun")
        #expect(
            try await sandbox.messages(try #require(drafts.first)) == [
                "the same question", "answer to the same question",
            ])
    }

    @Test("keep ask --chat ID with no question asks the chat's unanswered one again; a chat with none says so")
    func askTheDraftAgain() async throws {
        let server = try Self.failingFirst(1)
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let failed = try await sandbox.run("ask", "asked while it was down")
        #expect(failed.status == .exited(1))
        let id = try #require(failed.chatId)

        let again = try await sandbox.runOnTerminal("ask", "--chat", id)
        #expect(again.status == .exited(0), "\(again.screen)")
        #expect(again.screen.contains("answer to asked while it was down"), "\(again.screen)")
        #expect(try await sandbox.messages(id) == ["asked while it was down", "answer to asked while it was down"])

        let none = try await sandbox.runOnTerminal("ask", "--chat", id)
        #expect(none.status == .exited(2))
        #expect(
            none.screen.contains("keep: nothing to ask: chat \"\(id)\" has no unanswered question"), "\(none.screen)")
        let piped = try await sandbox.run(["ask", "--chat", id], input: "a piped question\n")
        #expect(piped.status == .exited(0) && piped.stdout == "answer to a piped question\n", "\(piped)")
    }

    @Test("chats show --json of a chat that is only its draft takes its times from when it was begun, not from now")
    func draftOnlyTimes() async throws {
        let sandbox = try Sandbox()
        // A draft-only chat begun long ago: its id is when.
        let id = "20200102-030405-abcdef"
        #expect(try await sandbox.run(["store", "put", "drafts", id], input: "an old question").status == .exited(0))
        let chat = try await sandbox.chat(id)
        #expect(chat["created"] as? String == "2020-01-02T03:04:05.000Z", "\(chat)")
        #expect(chat["updated"] as? String == "2020-01-02T03:04:05.000Z")
        #expect(chat["draft"] as? String == "an old question")
        let shown = try await sandbox.runOnTerminal("chats", "show", id)
        #expect(shown.screen.contains("an old question"), "\(shown.screen)")
    }

    // MARK: - The harness

    @Test("a wait for text that cannot come fails at once, with the screen, when keep sits waiting for keys")
    func harnessFailsFast() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "> "), "the positive: what keep prints is found")
        await withKnownIssue("keep waits at its prompt: the wait gives up, naming why and showing the screen") {
            let found = await chat.output.wait(for: "an answer nobody asked for", seconds: 600)
            #expect(!found)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("keep waits for keys") && $0.rawValue.contains("> ") }
        }
        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))
    }
}
