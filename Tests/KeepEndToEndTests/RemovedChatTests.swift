import Foundation
import Testing

/// A removed chat stays removed: asks in flight when `keep chats rm` takes their chat print
/// their answer, say in one line that it was not kept and why, exit 1, and never make the
/// chat again.
@Suite("A removed chat stays removed")
struct RemovedChatTests {
    /// Starts `keep ask` for each question, each waiting on `gate` after the answer's first
    /// piece; answers the processes once every one has printed that piece.
    private func asksWaiting(_ sandbox: Sandbox, _ questions: [String], chat: String?) async throws -> [KeepProcess] {
        let processes = try questions.map { question in
            try sandbox.start(["ask"] + (chat.map { ["--chat", $0] } ?? []) + [question])
        }
        for process in processes {
            process.closeInput()
            #expect(await process.output.wait(for: "first piece, "), "the ask is in its answer")
        }
        return processes
    }

    /// The answer's first piece, then the rest once `gate` opens: held for as long as a slow
    /// machine takes to remove the chat meanwhile (the harness's own gate gives up after a
    /// minute, which would let the turn land before the removal).
    static func held(_ pieces: [String], by gate: Gate) -> LoopbackServer.Handler {
        LoopbackServer.openAI { _, responder in
            responder.beginEvents()
            responder.content(pieces[0])
            gate.wait(seconds: 900)
            for piece in pieces.dropFirst() { responder.content(piece) }
            responder.done()
        }
    }

    private func outcome(_ process: KeepProcess) async -> Sandbox.Outcome {
        let status = await process.exit()
        return Sandbox.Outcome(
            status: status, stdout: await process.output.waitForEnd(), stderr: await process.errors?.waitForEnd() ?? "")
    }

    @Test("parallel asks in a chat removed while they are answered print the answer, say it was not kept, exit 1")
    func parallelAsksInARemovedChat() async throws {
        let sandbox = try Sandbox()
        let pieces = ["first piece, ", "and the rest"]
        try await sandbox.useRemote(try LoopbackServer(LoopbackServer.streaming(pieces)))
        let id = try await sandbox.ask("opening")
        // The pair first: parallel asks in the chat, not removed, are each kept.
        for process in try await asksWaiting(sandbox, ["kept one", "kept two"], chat: id) {
            let done = await outcome(process)
            #expect(done.status == .exited(0), "\(done)")
        }
        #expect(try await sandbox.messages(id).count == 6)

        let gate = Gate()
        defer { gate.open() }
        try await sandbox.useRemote(try LoopbackServer(Self.held(pieces, by: gate)))
        let asks = try await asksWaiting(sandbox, ["lost one", "lost two", "lost three"], chat: id)
        let removed = try await sandbox.run("chats", "rm", id)
        #expect(removed.status == .exited(0), "\(removed)")
        gate.open()
        for process in asks {
            let done = await outcome(process)
            #expect(done.status == .exited(1), "\(done)")
            #expect(done.stdout == "first piece, and the rest\n", "the answer is printed: \(done)")
            #expect(
                done.stderr.hasSuffix(
                    "keep: the answer was not kept: chat \(id) was removed while it was being answered\n"), "\(done)")
            #expect(done.stderr.split(separator: "\n").count == 2, "its id, then one line: \(done)")
        }
        let shown = try await sandbox.run("chats", "show", id)
        #expect(shown.status == .exited(1), "the chat is not made again: \(shown)")
        #expect(try await sandbox.run("store", "ls", "chats").stdout.isEmpty)
        #expect(try await sandbox.run("store", "ls", "drafts").stdout.isEmpty, "no draft is left either")
    }

    @Test("a new chat removed while its first answer comes is not made")
    func aNewChatRemoved() async throws {
        let gate = Gate()
        defer { gate.open() }
        let server = try LoopbackServer(Self.held(["first piece, ", "and the rest"], by: gate))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let asks = try await asksWaiting(sandbox, ["a new chat"], chat: nil)
        let ask = try #require(asks.first)
        #expect(await ask.errors?.wait(for: "\n") == true)
        let id = try #require(ask.errors?.text.split(separator: "\n").first.map(String.init))
        let removed = try await sandbox.run("chats", "rm", id)
        #expect(removed.status == .exited(0), "\(removed)")
        gate.open()
        let done = await outcome(ask)
        #expect(done.status == .exited(1), "\(done)")
        #expect(done.stdout == "first piece, and the rest\n", "\(done)")
        #expect(done.stderr.contains("the answer was not kept: chat \(id) was removed"), "\(done)")
        #expect(try await sandbox.run("store", "ls", "chats").stdout.isEmpty)
    }
}
