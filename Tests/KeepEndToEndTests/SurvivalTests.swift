import Foundation
import Testing

/// A completed turn survives whatever happens to a later run; an interrupted one leaves
/// its question as the draft.
@Suite("Turns survive kill -9")
struct SurvivalTests {
    @Test("a turn survives kill -9 of the next run")
    func aTurnSurvivesTheNextRunsKill() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("remember me")
        let before = try String(contentsOfFile: sandbox.file("chats", id), encoding: .utf8)

        let next = try sandbox.start(["chat", id])
        #expect(await next.errors?.wait(for: "remember me") == true, "the next run opened the chat")
        next.send(SIGKILL)
        #expect(await next.exit() == .signaled(SIGKILL))

        #expect(try await sandbox.messages(id) == ["remember me", "echo: remember me"])
        #expect(try String(contentsOfFile: sandbox.file("chats", id), encoding: .utf8) == before)
        let listed = try await sandbox.run("chats")
        #expect(listed.status == .exited(0) && listed.stdout.contains(id), "\(listed)")
    }

    @Test("a kill during a streamed answer leaves the previous turns and the draft")
    func aKillMidAnswerKeepsTheDraft() async throws {
        let gate = Gate()
        defer { gate.open() }
        let server = try LoopbackServer(
            LoopbackServer.openAI { request, responder in
                responder.beginEvents()
                let question = (request.json?["messages"] as? [[String: String]])?.last?["content"] ?? ""
                responder.content("answer to \(question)")
                if question == "second" {
                    responder.content(" (streaming…")
                    gate.wait()
                }
                responder.done()
            })
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let id = try await sandbox.ask("first")

        let asking = try sandbox.start(["ask", "--chat", id, "second"])
        asking.closeInput()  // piped input would join the question: there is none
        #expect(await asking.output.wait(for: "answer to second (streaming…"), "the answer was streaming")
        asking.send(SIGKILL)
        #expect(await asking.exit() == .signaled(SIGKILL))

        #expect(try await sandbox.messages(id) == ["first", "answer to first"])
        let chat = try await sandbox.chat(id)
        #expect(chat["draft"] as? String == "second")
    }

    @Test("a draft left by a kill is offered again, and answered, when the chat is opened")
    func theDraftIsOfferedAgain() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("first")
        #expect(
            try await sandbox.run("store", "put", "drafts", id, input: "asked before the kill").status == .exited(0))

        let opened = try sandbox.start(["chat", id])
        #expect(await opened.errors?.wait(for: "Unanswered question: \"asked before the kill\"") == true)
        opened.write("\n")  // Enter on an empty line asks it again
        #expect(await opened.output.wait(for: "echo: asked before the kill"))
        opened.closeInput()
        #expect(await opened.exit() == .exited(0))
        #expect(
            try await sandbox.messages(id) == [
                "first", "echo: first", "asked before the kill", "echo: asked before the kill",
            ])
        #expect(try await sandbox.chat(id)["draft"] == nil, "the draft was cleared with the turn")
    }
}
