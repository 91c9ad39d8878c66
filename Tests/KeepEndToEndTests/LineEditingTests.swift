import Foundation
import Testing

/// The chat's prompt as a person types at it: keys that edit the line, history across
/// launches, pastes, questions of many lines, and questions that start with `/`, each
/// checked in what the chat stored.
@Suite("Typing at the chat's prompt")
struct LineEditingTests {
    static let ctrlD = "\u{04}"
    static let pasteStart = "\u{1B}[200~"
    static let pasteEnd = "\u{1B}[201~"

    /// The prompt: the line editor prints it once the terminal is in its editing state, so
    /// keys typed from then on reach the editor (and not the kernel's line editing).
    static let editing = "> "

    /// Starts a chat on a terminal and, for each of `questions`, waits for the prompt, types
    /// the keys and waits for the answer; then quits, and answers the questions stored
    /// (the first message of each turn, in the one chat they made).
    private func storedQuestions(asking questions: [String], in sandbox: Sandbox) async throws -> [String] {
        let chat = try sandbox.start(["chat"], terminal: true)
        var offset = 0
        for keys in questions {
            #expect(await chat.output.wait(for: Self.editing, after: offset))
            offset = chat.output.count
            chat.write(keys)
            #expect(await chat.output.wait(for: "echo: ", after: offset), "answered: \(keys.prefix(40))")
            offset = Self.end(of: "echo: ", in: chat.output.text, after: offset) ?? chat.output.count
        }
        #expect(await chat.output.wait(for: Self.editing, after: offset), "every answer saved, back at the prompt")
        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))
        let ids = try await sandbox.run("store", "ls", "chats").stdout.split(separator: "\n").map(String.init)
        guard let id = ids.first else { return [] }
        #expect(ids.count == 1)
        let messages = try await sandbox.messages(id)
        return stride(from: 0, to: messages.count, by: 2).map { messages[$0] }
    }

    /// The byte offset just past the first `needle` in `text` after `offset` bytes.
    private static func end(of needle: String, in text: String, after offset: Int) -> Int? {
        let bytes = Array(text.utf8)
        let wanted = Array(needle.utf8)
        guard bytes.count >= wanted.count, offset <= bytes.count - wanted.count else { return nil }
        for start in offset...(bytes.count - wanted.count)
        where bytes[start..<start + wanted.count].elementsEqual(wanted) {
            return start + wanted.count
        }
        return nil
    }

    static let left = "\u{1B}[D"

    @Test(
        "the editing keys change the line, and the stored question holds only its text, never an escape code",
        arguments: [
            ("Left twice, then typing", "abc" + left + left + "X\r", "aXbc"),
            ("Home (xterm)", "world\u{1B}[Hhello \r", "hello world"),
            ("Home and End (VT220)", "abc\u{1B}[1~<\u{1B}[4~>\r", "<abc>"),
            ("Home and End (application mode)", "abc\u{1B}OH<\u{1B}OF>\r", "<abc>"),
            ("Ctrl-A and Ctrl-E", "world\u{01}hello \u{05}!\r", "hello world!"),
            ("Ctrl-Left a word at a time", "one two three\u{1B}[1;5D\u{1B}[1;5DX\r", "one Xtwo three"),
            ("Alt-B a word back", "one two\u{1B}bX\r", "one Xtwo"),
            ("Ctrl-W deletes the word before", "keep this gone\u{17}\r", "keep this "),
            ("Ctrl-U deletes the line before", "gone\u{15}kept\r", "kept"),
            ("Ctrl-K deletes to the end", "kept gone" + String(repeating: left, count: 5) + "\u{0B}\r", "kept"),
            ("Delete deletes under the cursor", "abcd" + left + left + "\u{1B}[3~\r", "abd"),
            ("UTF-8 text, moved through by character", "日本語" + left + left + "X\r", "日X本語"),
            (
                "a combining accent joins its letter (composed, as libedit can show it), and Left passes both",
                "cafe\u{301}" + left + "X\r", "cafX\u{E9}"
            ),
            ("Backspace deletes a letter with a mark that has no composed form whole", "aq\u{301}\u{7F}b\r", "ab"),
            ("Backspace deletes a flag, two code points, whole", "x\u{1F1EB}\u{1F1F7}\u{7F}y\r", "xy"),
            (
                "Delete deletes an emoji with its skin tone whole",
                "a\u{1F44D}\u{1F3FD}b" + left + left + "\u{1B}[3~\r",
                "ab"
            ),
            (
                "Right passes a whole character too", "e\u{301}\u{1F1EB}\u{1F1F7}\u{01}\u{1B}[C\u{1B}[CX\r",
                "\u{E9}\u{1F1EB}\u{1F1F7}X"
            ),
            ("an unknown key's sequence is dropped whole", "ab\u{1B}[15~\u{1B}OPc\r", "abc"),
        ])
    func editingKeys(_ name: String, _ keys: String, _ stored: String) async throws {
        let sandbox = try Sandbox()
        let questions = try await storedQuestions(asking: [keys], in: sandbox)
        #expect(questions == [stored], "\(name)")
    }

    @Test("Up recalls a question typed before a relaunch, Ctrl-R finds one, and the history is private")
    func historyAcrossLaunches() async throws {
        let sandbox = try Sandbox()
        let first = try await storedQuestions(
            asking: ["the very first question\r", "another one\r"], in: sandbox)
        #expect(first == ["the very first question", "another one"])
        let path = sandbox.file("history", "questions")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "only the user can read the history")
        let saved = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(String.self, from: Data($0.utf8))
        }
        #expect(saved == ["the very first question", "another one"], "one line per question, in the store")

        _ = try await sandbox.run("chats", "rm", try #require(try await sandbox.run("store", "ls", "chats").chatIdLine))
        let recalled = try await storedQuestions(
            asking: ["\u{1B}[A\u{1B}[A\r", "\u{12}another\r"], in: sandbox)
        #expect(recalled == ["the very first question", "another one"], "Up twice, then Ctrl-R")
    }

    @Test("with the setting chatHistory false, nothing is recalled or kept, and the history is removed")
    func historyOff() async throws {
        let sandbox = try Sandbox()
        _ = try await storedQuestions(asking: ["remember me\r"], in: sandbox)
        let path = sandbox.file("history", "questions")
        #expect(FileManager.default.fileExists(atPath: path), "the check would have seen a history file")
        #expect(try await sandbox.run("settings", "set", "chatHistory", "false").status == .exited(0))
        _ = try await sandbox.run("chats", "rm", try #require(try await sandbox.run("store", "ls", "chats").chatIdLine))

        // Up finds nothing: the line stays empty, and the question asked is the one typed.
        let questions = try await storedQuestions(asking: ["\u{1B}[Afresh\r"], in: sandbox)
        #expect(questions == ["fresh"])
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!(try DiskScan(sandbox.root).contains("remember me")), "no copy of the history is left")
    }

    @Test("a bracketed paste of many lines is one question, stored exactly as pasted (the terminal's CRs as newlines)")
    func pasteIsOneQuestion() async throws {
        let sandbox = try Sandbox()
        let pasted = "def f(x):\r    return x * 2\r\rprint(f(21))"
        let questions = try await storedQuestions(
            asking: ["explain: " + Self.pasteStart + pasted + Self.pasteEnd + " thanks\r"], in: sandbox)
        #expect(questions == ["explain: def f(x):\n    return x * 2\n\nprint(f(21)) thanks"])
    }

    @Test("the same lines typed without paste markers are separate questions")
    func linesWithoutMarkersAreSeparate() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: Self.editing))
        chat.write("first line\rsecond line\r")
        #expect(await chat.output.wait(for: "echo: second line"))
        let answered = Self.end(of: "echo: second line", in: chat.output.text, after: 0) ?? 0
        #expect(await chat.output.wait(for: Self.editing, after: answered))
        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))
        let id = try #require(try await sandbox.run("store", "ls", "chats").chatIdLine)
        #expect(
            try await sandbox.messages(id) == ["first line", "echo: first line", "second line", "echo: second line"])
    }

    @Test(
        "a question of 20,000 bytes is stored whole, pasted or typed: the kernel's line limit cuts nothing",
        arguments: [true, false])
    func longQuestion(pasted: Bool) async throws {
        let sandbox = try Sandbox()
        let line = String(repeating: "0123456789abcdefghijklmnopqrstuvwxyz ", count: 541)
        let text = String((pasted ? line.replacingOccurrences(of: "z ", with: "z\n") : line).prefix(20_000))
        #expect(text.utf8.count == 20_000)
        let keys = pasted ? Self.pasteStart + text + Self.pasteEnd + "\r" : text + "\r"
        let questions = try await storedQuestions(asking: [keys], in: sandbox)
        #expect(questions.first?.utf8.count == 20_000)
        #expect(questions == [text])
    }

    @Test("a line of \"\"\" opens a question of many lines and another closes it")
    func multiLineMode() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: Self.editing))
        for line in ["\"\"\"", "first line", "  second, indented", "", "/not a command"] {
            let mark = chat.output.count
            chat.write(line + "\r")
            #expect(await chat.output.wait(for: "\n… ", after: mark), "a line of the question, not an answer")
        }
        chat.write("\"\"\"\r")
        #expect(await chat.output.wait(for: "echo: first line"))
        #expect(await chat.quitAtThePrompt(after: "echo: first line"))
        #expect(await chat.exit() == .exited(0))
        let id = try #require(try await sandbox.run("store", "ls", "chats").chatIdLine)
        #expect(try await sandbox.messages(id).first == "first line\n  second, indented\n\n/not a command")
        #expect(!chat.output.text.contains("Unknown command"), "a line inside the question is never a command")
    }

    @Test("Ctrl-Z at the prompt stops keep with the terminal as it was, and fg returns to the line being typed")
    func suspendAtThePrompt() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: Self.editing))
        #expect(chat.terminalEchoes == false, "the editor echoes by itself")
        chat.write("half")
        #expect(await chat.output.wait(for: "> half"))
        chat.write("\u{1A}")
        #expect(await chat.waitUntilStopped(), "keep stopped")
        #expect(chat.terminalEchoes == true, "while keep is stopped the shell has its terminal back")
        chat.send(SIGCONT)
        chat.write(" and more\r")
        #expect(await chat.output.wait(for: "echo: half and more"))
        #expect(await chat.quitAtThePrompt(after: "echo: half and more"))
        #expect(await chat.exit() == .exited(0))
        let id = try #require(try await sandbox.run("store", "ls", "chats").chatIdLine)
        #expect(try await sandbox.messages(id).first == "half and more")
    }

    @Test(
        "// or a leading space asks a question that starts with /; a single / is still a command",
        arguments: [
            ("//etc/hosts: what is it for?\r", "/etc/hosts: what is it for?"),
            (" /etc/hosts: what is it for?\r", "/etc/hosts: what is it for?"),
        ])
    func slashQuestions(_ keys: String, _ stored: String) async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "> "))
        chat.write("/new\r")
        #expect(await chat.output.wait(for: "New chat: ask away."), "a single / is a command")
        chat.write(keys)
        #expect(await chat.output.wait(for: "echo: \(stored)"))
        #expect(await chat.quitAtThePrompt(after: "echo: \(stored)"))
        #expect(await chat.exit() == .exited(0))
        let id = try #require(try await sandbox.run("store", "ls", "chats").chatIdLine)
        #expect(try await sandbox.messages(id) == [stored, "echo: \(stored)"])
    }
}

extension KeepProcess {
    /// Waits for the prompt that follows the last `needle` (an answer) and quits with
    /// Ctrl-D there: a Ctrl-D typed while an answer streams reaches the kernel's line
    /// discipline, not the line editor. Whether the prompt came.
    func quitAtThePrompt(after needle: String) async -> Bool {
        let text = output.text
        let answered = text.range(of: needle, options: .backwards).map { text[..<$0.upperBound].utf8.count } ?? 0
        guard await output.wait(for: "\n> ", after: answered) else { return false }
        write("\u{04}")
        return true
    }
}

extension Sandbox.Outcome {
    /// The first line of standard output, for `store ls chats`.
    var chatIdLine: String? { stdout.split(separator: "\n").first.map(String.init) }
}
