import Foundation
import KeepTestSupport
import Testing

/// Job control during hidden key entry: Ctrl-Z (or `SIGTSTP`) and `fg` (`SIGCONT`) on a real
/// terminal, with the real keyring, and the key that reaches the server afterwards.
@Suite(
    "Hidden key entry and job control", .serialized,
    .onTheScriptsKeyring)
struct HiddenInputTests {
    private let account = "e2e-hidden-\(UUID().uuidString.lowercased())"

    /// How keep is told to stop: the Ctrl-Z key typed, or `SIGTSTP` sent from outside.
    enum Stop: String, CaseIterable, Sendable {
        case ctrlZ, signal
    }

    @Test(
        "stopped during key entry and continued, keep hides the typing again, asks again, stores only the whole key",
        arguments: Stop.allCases)
    func stopAndContinue(_ stop: Stop) async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try Sandbox(keyring: true)
        try await sandbox.useRemote(server)

        let set = try sandbox.start(["key", "set", "custom", "--account", account], terminal: true)
        #expect(await set.output.wait(for: "(typing is hidden): "))
        #expect(set.terminalEchoes == false)
        set.write("sk-first-half")
        switch stop {
        case .ctrlZ: set.write("\u{1A}")
        case .signal: set.send(SIGTSTP)
        }
        #expect(await set.waitUntilStopped(), "keep stopped")
        #expect(set.terminalEchoes == true, "while keep is stopped the shell has its echoing terminal back")

        let mark = set.output.count
        set.send(SIGCONT)
        #expect(await set.output.wait(for: "type it again)\r\nKey for custom/", after: mark))
        #expect(set.terminalEchoes == false, "continued, the typing is hidden again")
        set.write("sk-whole-key\r")
        #expect(await set.exit() == .exited(0))
        let shown = await set.output.waitForEnd()
        #expect(shown.contains("Stored the key for custom/"), "the check reads what was shown")
        #expect(!shown.contains("sk-first") && !shown.contains("sk-whole"), "nothing typed was shown")
        #expect(set.terminalEchoes == true)

        // The key stored is exactly the one typed after the stop: the server receives it.
        #expect(try await sandbox.run("settings", "set", "keySlot", "custom").status == .exited(0))
        #expect(try await sandbox.run("settings", "set", "keyAccount", account).status == .exited(0))
        #expect(try await sandbox.run("ask", "hello").status == .exited(0))
        #expect(server.requests.last?.header("Authorization") == "Bearer sk-whole-key")
        #expect(try await sandbox.run("key", "rm", "custom", "--account", account).status == .exited(0))
    }

    @Test("a key typed at keep key set never reaches the chat's history, which holds the questions typed")
    func keyNeverInHistory() async throws {
        let sandbox = try Sandbox(keyring: true)
        let chat = try sandbox.start(["chat"], terminal: true)
        #expect(await chat.output.wait(for: "> "))
        chat.write("a question for the history\r")
        #expect(await chat.quitAtThePrompt(after: "echo: a question for the history"))
        #expect(await chat.exit() == .exited(0))

        let set = try sandbox.start(["key", "set", "custom", "--account", account], terminal: true)
        #expect(await set.output.wait(for: "(typing is hidden): "))
        set.write("sk-never-in-history\r")
        #expect(await set.exit() == .exited(0))

        let again = try sandbox.start(["chat"], terminal: true)
        #expect(await again.output.wait(for: "> "))
        again.write("after the key\r")
        #expect(await again.quitAtThePrompt(after: "echo: after the key"))
        #expect(await again.exit() == .exited(0))

        // The history is sealed with the chats on a keyring: read through keep, opened.
        let history = try await sandbox.run("store", "get", "history", "questions").stdout
        #expect(
            history.contains("a question for the history") && history.contains("after the key"),
            "the history holds the questions typed: \(history)")
        #expect(!history.contains("sk-never-in-history"))
        #expect(!(try DiskScan(sandbox.root).contains("sk-never-in-history")))
        #expect(try await sandbox.run("key", "rm", "custom", "--account", account).status == .exited(0))
    }

}

extension KeepProcess {
    /// Waits (up to 30 s) until the process is stopped, as `/proc/PID/stat` says (state `T`).
    func waitUntilStopped() async -> Bool {
        for _ in 0..<3000 {
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let state = stat.split(separator: ")").last?.split(separator: " ").first, state == "T"
            {
                return true
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
