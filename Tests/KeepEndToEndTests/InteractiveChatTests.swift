import Foundation
import Synchronization
import Testing

/// The interactive chat, driven through a pseudo-terminal as a person at a terminal would:
/// `keep` is the child whose controlling terminal it is, so Ctrl-C on it is a real `SIGINT`.
@Suite("The interactive chat on a terminal")
struct InteractiveChatTests {
    static let ctrlC = "\u{03}"
    static let ctrlD = "\u{04}"

    @Test("a question is answered and saved; Ctrl-C at the prompt clears the line; Ctrl-D quits")
    func echoChat() async throws {
        let sandbox = try Sandbox()
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "No chats yet: type a question and press Enter to start one."))
        #expect(await chat.output.wait(for: "> "))

        chat.write("hello there\r")
        #expect(await chat.output.wait(for: "echo: hello there\r\n> "), "answered, saved, and back at the prompt")

        var mark = chat.output.count
        chat.write("a half-typed line")
        chat.write(Self.ctrlC)
        #expect(await chat.output.wait(for: "(Ctrl-D or /quit to quit)", after: mark))
        #expect(chat.isRunning)

        mark = chat.output.count
        chat.write("/help\r")
        #expect(await chat.output.wait(for: "/open ID        switch to the chat ID", after: mark))

        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))

        let ids = try await sandbox.run("store", "ls", "chats").stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 1)
        #expect(try await sandbox.messages(ids[0]) == ["hello there", "echo: hello there"])
        #expect(!(try DiskScan(sandbox.root).contains("half-typed")), "a line cleared with Ctrl-C is not kept")
    }

    @Test("a failure to list the chats inside the chat stays local to the list: the chat goes on")
    func aListFailureStaysLocal() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.ask("an earlier chat")
        let chats = "\(sandbox.root)/store/chats"
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "/chats to list your 1 chat"))
        #expect(await chat.output.wait(for: "> "))

        // After boot, the namespace directory becomes a symbolic link: the store refuses to
        // list through it (never following a link), while nothing else is asked of it.
        let moved = chats + ".moved"
        try FileManager.default.moveItem(atPath: chats, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: chats, withDestinationPath: moved)
        var mark = chat.output.count
        chat.write("/chats\r")
        #expect(await chat.output.wait(for: "cannot list the chats:", after: mark), "the failure is said")
        #expect(await chat.output.wait(for: "> ", after: mark), "and the chat is back at its prompt")
        #expect(chat.isRunning, "a failed list did not end the chat")

        // The store healed, the same chat lists and answers as before.
        try FileManager.default.removeItem(atPath: chats)
        try FileManager.default.moveItem(atPath: moved, toPath: chats)
        mark = chat.output.count
        chat.write("/chats\r")
        #expect(await chat.output.wait(for: "an earlier chat", after: mark), "the list loads again")
        mark = chat.output.count
        chat.write("still here?\r")
        #expect(await chat.output.wait(for: "echo: still here?\r\n> ", after: mark), "answered and saved")
        chat.write(Self.ctrlD)
        #expect(await chat.exit() == .exited(0))
        let ids = try await sandbox.run("store", "ls", "chats").stdout.split(separator: "\n")
        #expect(ids.count == 2, "the new chat was kept beside the earlier one")
    }

    @Test("Ctrl-C during an answer stops it, keeps the question as the draft, and does not quit")
    func ctrlCDuringAnAnswer() async throws {
        let gate = Gate()
        defer { gate.open() }
        let firstSlowOne = Mutex(true)
        let server = try LoopbackServer(
            LoopbackServer.openAI { request, responder in
                let question = (request.json?["messages"] as? [[String: String]])?.last?["content"] ?? ""
                responder.beginEvents()
                // The first time the slow question comes, the answer stops half way.
                let stopsHalfWay =
                    question == "the slow one"
                    && firstSlowOne.withLock { first in
                        defer { first = false }
                        return first
                    }
                if stopsHalfWay {
                    responder.content("partial ")
                    gate.wait()
                }
                responder.content("answer to \(question)")
                responder.done()
            })
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "remote engine: test-model at \(server.baseURL)"))

        chat.write("the quick one\r")
        #expect(await chat.output.wait(for: "answer to the quick one\r\n> "))
        let id = try #require(try await sandbox.run("store", "ls", "chats").stdout.split(separator: "\n").first)

        var mark = chat.output.count
        chat.write("the slow one\r")
        #expect(await chat.output.wait(for: "partial", after: mark), "the answer is streaming")
        chat.write(Self.ctrlC)
        #expect(await chat.output.wait(for: "(stopped; the question is kept as this chat's draft", after: mark))
        #expect(chat.isRunning, "Ctrl-C stopped the answer, not keep")

        let saved = try await sandbox.chat(String(id))
        #expect(saved["draft"] as? String == "the slow one")
        #expect(try await sandbox.messages(String(id)) == ["the quick one", "answer to the quick one"])

        mark = chat.output.count
        chat.write("\r")  // Enter on an empty line asks the draft again
        #expect(await chat.output.wait(for: "answer to the slow one", after: mark))
        #expect(await chat.quitAtThePrompt(after: "answer to the slow one"))
        #expect(await chat.exit() == .exited(0))
        #expect(
            try await sandbox.messages(String(id)) == [
                "the quick one", "answer to the quick one", "the slow one", "answer to the slow one",
            ])
        #expect(try await sandbox.chat(String(id))["draft"] == nil)
    }

    @Test("slash commands: /new starts a chat, /chats lists them, /open switches, /quit quits")
    func slashCommands() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.ask("first chat")
        let chat = try sandbox.start([], terminal: true)
        #expect(await chat.output.wait(for: "/chats to list your 1 chat"))

        chat.write("/open \(first)\r")
        #expect(await chat.output.wait(for: "chat \(first): first chat (2 messages)"))
        chat.write("more\r")
        #expect(await chat.output.wait(for: "echo: more"))
        chat.write("/new\r")
        #expect(await chat.output.wait(for: "New chat: ask away."))
        chat.write("second chat\r")
        #expect(await chat.output.wait(for: "echo: second chat"))
        var mark = chat.output.count
        chat.write("/chats\r")
        #expect(await chat.output.wait(for: "\(first)  ", after: mark))
        mark = chat.output.count
        chat.write("/open nowhere\r")
        #expect(await chat.output.wait(for: "There is no chat \"nowhere\"; /chats lists them.", after: mark))
        chat.write("/bogus\r")
        #expect(await chat.output.wait(for: "Unknown command /bogus; /help lists them."))
        chat.write("/quit\r")
        #expect(await chat.exit() == .exited(0))
        #expect(try await sandbox.messages(first) == ["first chat", "echo: first chat", "more", "echo: more"])
        #expect(try await sandbox.run("store", "ls", "chats").stdout.split(separator: "\n").count == 2)
    }
}
