import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every wait is bounded: a FIFO (or a device) planted at a name keep opens never makes
/// keep wait for ever. Each is refused before any open that could block, in one line that
/// names the path and what is there, and the command goes on or ends.
@Suite("Special files are refused, never waited on")
struct SpecialFileTests {
    /// Runs `keep arguments` to its end, with a watchdog that kills it after `seconds` (a
    /// guard against the hang under test, never a measure of time): the outcome, and
    /// whether keep ended on its own.
    private func run(
        _ sandbox: Sandbox, _ arguments: [String], seconds: Double = 60
    ) async throws -> (
        ended: Bool, outcome: Sandbox.Outcome
    ) {
        let process = try sandbox.start(arguments)
        process.closeInput()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(seconds))
            process.send(SIGKILL)
        }
        let status = await process.exit()
        watchdog.cancel()
        let outcome = Sandbox.Outcome(
            status: status, stdout: await process.output.waitForEnd(),
            stderr: await process.errors?.waitForEnd() ?? "")
        return (status != .signaled(SIGKILL), outcome)
    }

    /// A sandbox that has made its data root, its settings, a chat, its index and kept data.
    private func usedSandbox() async throws -> Sandbox {
        let sandbox = try Sandbox()
        _ = try await sandbox.ask("hello")
        let set = try await sandbox.run("settings", "set", "model", "some-model")
        #expect(set.status == .exited(0), "\(set)")
        let listed = try await sandbox.run("chats")
        #expect(listed.status == .exited(0), "\(listed)")
        return sandbox
    }

    /// The names a FIFO is planted at, and the commands that open them and so say so.
    static let planted: [(name: String, sayers: [String])] = [
        ("kept.sqlite", ["doctor", "engines", "whatsnew"]), ("kept.sqlite-wal", ["doctor", "engines", "whatsnew"]),
        ("kept.sqlite-shm", ["doctor", "engines", "whatsnew"]),
        ("kept.sqlite.lock", ["doctor", "engines", "whatsnew"]),
        ("store.lock", ["ask", "doctor"]), ("chat-index.sqlite", ["doctor"]), ("chat-index.sqlite-wal", ["doctor"]),
        ("history", ["doctor"]),
        ("store/settings/settings", ["chat", "doctor", "engines", "whatsnew", "ask"]),
    ]

    @Test(
        "a FIFO at a file keep opens is refused in one line, and keep chat, chats, doctor, engines, whatsnew and ask end",
        arguments: planted)
    func fifoPlanted(_ name: String, _ sayers: [String]) async throws {
        let sandbox = try await usedSandbox()
        let path = sandbox.root + "/" + name
        let commands = [["chat"], ["chats"], ["doctor"], ["engines"], ["whatsnew"], ["ask", "hi"]]
        // The pair first: with the file as keep made it (or with none), every command ends
        // and none says a word about that name.
        for arguments in commands {
            let (ended, outcome) = try await run(sandbox, arguments)
            #expect(ended && outcome.status != .exited(2), "keep \(arguments) before the FIFO: \(outcome)")
            #expect(!(outcome.stdout + outcome.stderr).contains("FIFO"), "keep \(arguments): \(outcome)")
        }
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        for arguments in commands {
            let (ended, outcome) = try await run(sandbox, arguments)
            #expect(ended, "keep \(arguments) waited on the FIFO at \(name) until killed: \(outcome)")
            let said = outcome.stdout + outcome.stderr
            #expect(!said.contains("ermission"), "keep \(arguments): \(outcome)")
            guard sayers.contains(arguments[0]) else { continue }
            // The store's own values say "not a regular file" (the file store's words); the rest say what it is.
            let line = said.split(whereSeparator: \.isNewline).first {
                $0.contains("a named pipe (FIFO), not a file") || $0.contains("not a regular file")
            }
            #expect(line?.contains(path) == true, "keep \(arguments) names the path and what is there: \(outcome)")
        }
    }

    @Test(
        "chats import refuses a FIFO, a device and a socket by what they are, and reads no more than its limit",
        arguments: [
            ("fifo", "a named pipe (FIFO)"), ("/dev/zero", "a character device"), ("/dev/null", "a character device"),
        ])
    func importRefusesSpecialFiles(_ name: String, _ words: String) async throws {
        let sandbox = try Sandbox()
        var path = name
        if name == "fifo" {
            path = sandbox.directory.appending("chat.json")
            #expect(mkfifo(path, 0o600) == 0)
        }
        let (ended, outcome) = try await run(sandbox, ["chats", "import", path])
        #expect(ended && outcome.status == .exited(1), "\(outcome)")
        #expect(
            outcome.stderr == "keep: \"\(path)\" is \(words), not a file: give a file keep exported, or `-` to read "
                + "standard input\n", "\(outcome)")

        // The pair: a file keep exported imports, through a link too.
        let id = try await sandbox.ask("a chat to export")
        let exported = try await sandbox.run("chats", "export", id, "--format", "json")
        let file = sandbox.directory.appending("exported.json")
        try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let link = sandbox.directory.appending("link.json")
        #expect(symlink(file, link) == 0)
        let imported = try await sandbox.run("chats", "import", link)
        #expect(imported.status == .exited(0) && imported.stdout.hasPrefix("Imported chat "), "\(imported)")
    }

    @Test("chats import of a file larger than its limit reads no more than one byte past it, and says so")
    func importIsBounded() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.directory.appending("huge.json")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        // A sparse file of 65 MiB: costs no disk, and reads as zeros.
        #expect(truncate(path, 65 << 20) == 0)
        let (ended, outcome) = try await run(sandbox, ["chats", "import", path])
        #expect(ended && outcome.status == .exited(1), "\(outcome)")
        #expect(outcome.stderr.contains("is larger than 64 MiB: not a keep chat"), "\(outcome)")
    }

    @Test("a FIFO history file is refused in one line at the prompt, and the chat goes on without history")
    func fifoHistory() async throws {
        let sandbox = try await usedSandbox()
        let path = sandbox.root + "/history"
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "this chat keeps no history"), "\(chat.output.text)")
        #expect(await chat.output.wait(for: "> "))
        let warning = chat.output.text.split(whereSeparator: \.isNewline).first { $0.contains("history") }
        #expect(
            warning?.hasPrefix(
                "keep: warning: cannot read the question history \(path): it is a named pipe (FIFO), not a file")
                == true,
            "\(chat.output.text)")
        let mark = chat.output.count
        chat.write("still answered\r")
        #expect(await chat.output.wait(for: "echo: still answered", after: mark))
        #expect(await chat.quitAtThePrompt(after: "echo: still answered"))
        #expect(await chat.exit() == .exited(0))
    }
}
