import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// Shell completion: each script `keep completions` prints parses in its shell, and
/// completes commands, subcommands and the chat ids keep itself lists.
@Suite("Shell completion")
struct CompletionTests {
    /// The script for `shell`, written to a file in `sandbox`.
    static func script(_ shell: String, in sandbox: Sandbox) async throws -> String {
        let printed = try await sandbox.run("completions", shell)
        guard printed.status == .exited(0), printed.stderr.isEmpty else {
            throw SandboxFailure("keep completions \(shell) failed:\n\(printed)")
        }
        let path = sandbox.directory.appending("keep.\(shell)")
        try Data(printed.stdout.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What bash's completion offers for `words` (the last one being completed), as keep's
    /// script computes it: `COMP_WORDS` and `COMP_CWORD` set, `_keep` called, `COMPREPLY` read.
    static func bash(_ words: [String], _ sandbox: Sandbox) async throws -> [String] {
        let path = try await script("bash", in: sandbox)
        let quoted = ([KeepProcess.binary] + words).map { "'" + $0 + "'" }.joined(separator: " ")
        let program = """
            source '\(path)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count); COMPREPLY=()
            _keep
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = try await ToolRun.run("bash", ["--norc", "-c", program], environment: sandbox.environment)
        #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
        return run.output.split(separator: "\n").map(String.init)
    }

    @Test(
        "each shell's completion script parses",
        arguments: ["bash", "zsh", "fish"].filter(ToolRun.isInstalled))
    func parses(_ shell: String) async throws {
        let sandbox = try Sandbox()
        let path = try await Self.script(shell, in: sandbox)
        let checked = try await ToolRun.run(shell, ["-n", path])
        #expect(checked.status == 0 && checked.errors.isEmpty, "\(shell) -n: \(checked.errors)")
        // The check would see a script that does not parse.
        try Data("if then fi (\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await ToolRun.run(shell, ["-n", path]).status != 0)
    }

    @Test("bash completes keep ch to chat and chats, and keep chats s to seal, search and show")
    func bashCompletesCommands() async throws {
        let sandbox = try Sandbox()
        #expect(try await Self.bash(["ch"], sandbox).sorted() == ["chat", "chats"])
        #expect(try await Self.bash(["chats", "s"], sandbox).sorted() == ["seal", "search", "show"])
        #expect(try await Self.bash(["chats", "--j"], sandbox) == ["--json"])
        #expect(try await Self.bash(["chats", "export", "--format", ""], sandbox) == ["markdown", "json"])
        #expect(try await Self.bash(["key", "set", "open"], sandbox) == ["openai", "openrouter"])
        #expect(try await Self.bash(["settings", "get", "chatH"], sandbox) == ["chatHistory"])
        #expect(try await Self.bash(["ask", "what"], sandbox).isEmpty, "a question is the user's own")
    }

    @Test("bash completes a chat id from the chats keep lists, asked of keep as Tab is pressed")
    func bashCompletesChatIds() async throws {
        let sandbox = try Sandbox()
        #expect(try await Self.bash(["chats", "show", ""], sandbox).isEmpty, "no chats, no ids")
        let first = try await sandbox.ask("one")
        let second = try await sandbox.ask("two")
        #expect(try await Self.bash(["chats", "show", ""], sandbox).sorted() == [first, second].sorted())
        #expect(
            try await Self.bash(["ask", "--chat", String(second.prefix(4))], sandbox).sorted()
                == [first, second].sorted())
        #expect(try await Self.bash(["chats", "show", second, ""], sandbox).isEmpty, "one ID is all show takes")
    }

    @Test("keep chats --ids prints every chat's id, newest first, and nothing else")
    func chatIds() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.ask("one")
        let second = try await sandbox.ask("two")
        // A new chat whose first question waits for its answer is a chat to name too.
        let waiting = "20991231-235959-abcdef"
        #expect(try await sandbox.run(["store", "put", "drafts", waiting], input: "pending").status == .exited(0))
        let listed = try await sandbox.run("chats", "--ids")
        #expect(listed.status == .exited(0) && listed.stderr.isEmpty, "\(listed)")
        #expect(listed.stdout == [waiting, second, first].sorted(by: >).map { $0 + "\n" }.joined())
        let both = try await sandbox.run("chats", "--ids", "--json")
        #expect(both.status == .exited(2), "\(both)")
    }

    @Test(
        "zsh offers the commands with what they do, and the chat ids keep lists",
        .enabled(if: ToolRun.isInstalled("zsh")))
    func zshCompletes() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("one")
        let path = try await Self.script("zsh", in: sandbox)
        // compsys's functions stand in as printers, so the script's own logic is what runs.
        func offered(_ words: [String]) async throws -> String {
            let quoted = ([KeepProcess.binary] + words).map { "'" + $0 + "'" }.joined(separator: " ")
            let program = """
                compdef() { : }
                compadd() { [[ $1 == -a ]] && print -rl -- "${(@P)2}" || print -rl -- "$@" }
                _describe() { print -rl -- "${(@P)4}" }
                _files() { print -r -- FILES }
                source '\(path)'
                words=(\(quoted)); CURRENT=\(words.count + 1); PREFIX=${words[CURRENT]}
                _keep
                """
            let run = try await ToolRun.run("zsh", ["-f", "-c", program], environment: sandbox.environment)
            #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
            return run.output
        }
        #expect(try await offered(["ch"]).contains("chats:List your chats"))
        #expect(try await offered(["chats", "show", ""]) == id + "\n")
        #expect(try await offered(["chats", "import", ""]) == "FILES\n")
        #expect(try await offered(["chats", "-"]).contains("--json:print JSON instead of text"))
    }

    @Test(
        "fish offers the commands and subcommands, and the chat ids keep lists",
        .enabled(if: ToolRun.isInstalled("fish")))
    func fishCompletes() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("one")
        let path = try await Self.script("fish", in: sandbox)
        func offered(_ line: String) async throws -> [String] {
            let program = "source '\(path)'; complete -C '\(KeepProcess.binary) \(line)'"
            let run = try await ToolRun.run("fish", ["--no-config", "-c", program], environment: sandbox.environment)
            #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
            return run.output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        #expect(try await offered("ch") == ["chat", "chats"])
        #expect(try await offered("chats s") == ["seal", "search", "show"])
        #expect(try await offered("chats show ") == [id])
        #expect(try await offered("chats export --format ") == ["json", "markdown"])
    }
}
