import Foundation
import Testing

/// Many `keep ask` at once, as `xargs -P 8` runs them: every run succeeds and every turn
/// is kept.
@Suite("Parallel keep ask")
struct ParallelAskTests {
    /// Starts one `keep ask` per question at once, and waits for them all.
    private func askAtOnce(
        _ sandbox: Sandbox, _ questions: [String], chat: String? = nil
    ) async throws
        -> [Sandbox.Outcome]
    {
        let processes = try questions.map { question in
            try sandbox.start(["ask"] + (chat.map { ["--chat", $0] } ?? []) + [question])
        }
        var outcomes: [Sandbox.Outcome] = []
        for process in processes {
            process.closeInput()
            let status = await process.exit()
            outcomes.append(
                Sandbox.Outcome(
                    status: status, stdout: await process.output.waitForEnd(),
                    stderr: await process.errors?.waitForEnd() ?? ""))
        }
        return outcomes
    }

    @Test("eight parallel keep ask runs keep eight turns, in eight chats with unique ids")
    func eightNewChats() async throws {
        let sandbox = try Sandbox()
        let questions = (1...8).map { "question \($0)" }
        let outcomes = try await askAtOnce(sandbox, questions)
        for outcome in outcomes { #expect(outcome.status == .exited(0), "\(outcome)") }
        let ids = outcomes.compactMap(\.chatId)
        #expect(Set(ids).count == 8)
        for (id, question) in zip(ids, questions) {
            #expect(try await sandbox.messages(id) == [question, "echo: \(question)"])
        }
        let listed = try await sandbox.run("store", "ls", "chats")
        #expect(listed.stdout.split(separator: "\n").count == 8)
    }

    @Test("eight parallel keep ask --chat on one chat lose no turn")
    func eightTurnsInOneChat() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("opening")
        let questions = (1...8).map { "turn \($0)" }
        let outcomes = try await askAtOnce(sandbox, questions, chat: id)
        for outcome in outcomes { #expect(outcome.status == .exited(0), "\(outcome)") }

        let messages = try await sandbox.messages(id)
        #expect(messages.count == 18)
        #expect(Array(messages.prefix(2)) == ["opening", "echo: opening"])
        // Every question is there once, its answer right after it, in whatever order they landed.
        let turns = stride(from: 2, to: messages.count - 1, by: 2).map { (messages[$0], messages[$0 + 1]) }
        #expect(Set(turns.map(\.0)) == Set(questions))
        for (question, answer) in turns { #expect(answer == "echo: \(question)") }
    }

    @Test("keep ask -c continues the chat answered last")
    func continueTheLastChat() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.ask("one")
        let second = try await sandbox.ask("two")
        _ = try await sandbox.ask("three", chat: first)
        let continued = try await sandbox.run("ask", "-c", "four")
        #expect(continued.status == .exited(0), "\(continued)")
        #expect(continued.chatId == first)
        #expect(try await sandbox.messages(first).count == 6)
        #expect(try await sandbox.messages(second).count == 2)
    }
}
