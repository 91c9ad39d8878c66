import Foundation
import Testing

/// How an answer shows: rendered on a terminal, as it came with `--raw` or `NO_COLOR` or
/// to a pipe, a server's escape codes never obeyed, and a quiet indicator while the server
/// thinks; what is stored is always the answer exactly as the server sent it.
@Suite("Answers on the screen")
struct AnswerDisplayTests {
    static let esc = "\u{1B}"
    static let indicator = "\u{1B}[2m…\u{1B}[0m"

    /// A chat on a terminal that asks `question` with `arguments` and `extra` environment,
    /// and answers what the terminal showed and the stored messages.
    private func shown(
        answer pieces: [String], arguments: [String] = [], extra: [String: String] = [:]
    ) async throws -> (screen: String, stored: [String]) {
        let server = try LoopbackServer(LoopbackServer.streaming(pieces))
        var sandbox = try Sandbox()
        sandbox.extra = extra
        try await sandbox.useRemote(server)
        let chat = try sandbox.start(["chat"] + arguments, terminal: true)
        #expect(await chat.output.wait(for: "> "))
        let mark = chat.output.count
        chat.write("the question\r")
        #expect(await chat.output.wait(for: "\n> ", after: mark + "the question".utf8.count))
        chat.write("\u{04}")
        #expect(await chat.exit() == .exited(0))
        let screen = String(decoding: Array(chat.output.text.utf8).dropFirst(mark), as: UTF8.self)
        let id = try #require(try await sandbox.run("store", "ls", "chats").chatIdLine)
        return (screen, try await sandbox.messages(id))
    }

    static let markdown = ["Some **bo", "ld** text and `co", "de`.\n", "- an item\n"]

    @Test(
        "on a terminal the answer's Markdown is rendered; --raw and NO_COLOR show it as it came; the stored answer is raw",
        arguments: [
            ([String](), [String: String](), true),
            (["--raw"], [:], false),
            ([], ["NO_COLOR": "1"], false),
        ])
    func rendering(_ arguments: [String], _ extra: [String: String], _ rendered: Bool) async throws {
        let (screen, stored) = try await shown(answer: Self.markdown, arguments: arguments, extra: extra)
        #expect(stored == ["the question", Self.markdown.joined()])
        if rendered {
            #expect(screen.contains("\(Self.esc)[1mbold\(Self.esc)[0m text"), "\(screen.debugDescription)")
            #expect(screen.contains("\(Self.esc)[36mcode\(Self.esc)[0m."))
            #expect(screen.contains("• an item"))
            #expect(!screen.contains("**"))
        } else {
            #expect(screen.contains("Some **bold** text and `code`.\r\n- an item"), "\(screen.debugDescription)")
            #expect(!screen.contains("\(Self.esc)[1m"))
        }
    }

    @Test(
        "a server's escape codes are shown as text, never obeyed, rendered or raw on a terminal",
        arguments: [[String](), ["--raw"]])
    func escapesNeutralised(_ arguments: [String]) async throws {
        let hostile = ["title \(Self.esc)]0;pwned\u{07} and \(Self.esc)[2J", "clear\u{9B}31m"]
        let (screen, stored) = try await shown(answer: hostile, arguments: arguments)
        #expect(stored == ["the question", hostile.joined()], "stored exactly as sent")
        #expect(screen.contains("title ^[]0;pwned^G and ^[[2Jclear<U+009B>31m"), "\(screen.debugDescription)")
        #expect(!screen.contains("\(Self.esc)]0;"))
        #expect(!screen.contains("\(Self.esc)[2J"))
        #expect(!screen.contains("\u{9B}"))
    }

    @Test("on a terminal a Markdown table is laid out in columns and a *** rule drawn; the stored answer is raw")
    func tablesAndRules() async throws {
        let table = ["| Key | Does |\n|---|---|\n| Ctrl-R | searches |\n", "| Ctrl-C | stops |\n", "***\nend\n"]
        let (screen, stored) = try await shown(answer: table)
        #expect(stored == ["the question", table.joined()])
        #expect(
            screen.contains("\(Self.esc)[1mKey\(Self.esc)[0m    \(Self.esc)[2m│\(Self.esc)[0m"),
            "\(screen.debugDescription)")
        #expect(screen.contains("Ctrl-R \(Self.esc)[2m│\(Self.esc)[0m searches"))
        #expect(screen.contains("───────┼─"), "the header's rule")
        #expect(screen.contains(String(repeating: "─", count: 80)), "the *** rule, across the width")
        #expect(!screen.contains("|---|") && !screen.contains("***"), "\(screen.debugDescription)")
    }

    @Test("to a pipe the answer is the server's text exactly, with no indicator and no styles")
    func rawToAPipe() async throws {
        let pieces = Self.markdown + ["\(Self.esc)[2J"]
        let server = try LoopbackServer(LoopbackServer.streaming(pieces))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let outcome = try await sandbox.run(["chat"], input: "the question\n")
        #expect(outcome.status == .exited(0))
        #expect(outcome.stdout == pieces.joined() + "\n", "\(outcome)")
        #expect(!outcome.stdout.contains("…"))
    }

    @Test("while the server thinks a quiet indicator shows, gone when the first token arrives; Ctrl-C still stops")
    func waitingIndicator() async throws {
        let gate = Gate()
        defer { gate.open() }
        let server = try LoopbackServer(LoopbackServer.streaming(["first token"], gate: gate, before: 0))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "> "))

        var mark = chat.output.count
        chat.write("are you there?\r")
        #expect(await chat.output.wait(for: Self.indicator, after: mark))
        #expect(!chat.output.text.contains("first token"))
        chat.write("\u{03}")
        #expect(await chat.output.wait(for: "(stopped;", after: mark), "Ctrl-C while waiting stops the answer")
        let afterIndicator = try #require(chat.output.text.components(separatedBy: Self.indicator).last)
        #expect(afterIndicator.contains("\r\(Self.esc)[K(stopped;"), "the indicator is gone before the line")
        #expect(chat.isRunning)

        mark = chat.output.count
        chat.write("\r")  // the draft, asked again
        #expect(await chat.output.wait(for: Self.indicator, after: mark))
        gate.open()
        #expect(await chat.output.wait(for: "first token", after: mark))
        #expect(chat.output.text.contains(Self.indicator + "\r\(Self.esc)[Kfirst token"))
        #expect(await chat.quitAtThePrompt(after: "first token"))
        #expect(await chat.exit() == .exited(0))
    }
}
