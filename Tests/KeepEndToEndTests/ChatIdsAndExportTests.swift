import Foundation
import Testing

/// Ids people can type, titles, export and import, and the conventions every command keeps.
@Suite("Chat ids, export and import, and conventions")
struct ChatIdsAndExportTests {
    @Test("every command that takes a chat id takes a unique start of it")
    func prefixesEverywhere() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("first")
        let prefix = String(id.prefix(18))
        let shown = try await sandbox.run("chats", "show", prefix)
        #expect(shown.status == .exited(0) && shown.stdout.contains(id), "\(shown)")
        let asked = try await sandbox.run("ask", "--chat", prefix, "second")
        #expect(asked.status == .exited(0) && asked.chatId == id, "\(asked)")
        #expect(try await sandbox.run("chats", "rename", prefix, "Named").status == .exited(0))
        #expect(try await sandbox.run("chats", "export", prefix).stdout.hasPrefix("# Named\n"))
        let chat = try sandbox.start(["chat", prefix])
        chat.closeInput()
        #expect(await chat.exit() == .exited(0))
        #expect(await chat.errors?.waitForEnd().contains("chat \(id): Named (4 messages)") == true)
        let removed = try await sandbox.run("chats", "rm", prefix)
        #expect(removed.status == .exited(0) && removed.stdout == "Removed chat \(id).\n", "\(removed)")
    }

    @Test("a start shared by several chats is refused, listing them, and changes nothing")
    func ambiguousPrefix() async throws {
        let sandbox = try Sandbox()
        for id in ["20250614-153012-3fa9c1", "20250614-153012-3fb000"] {
            let put = try await sandbox.run(["store", "put", "chats", id], input: Self.chatFile(id: id))
            #expect(put.status == .exited(0), "\(put)")
        }
        for arguments in [["chats", "show", "2025"], ["chats", "rm", "20250614"], ["ask", "--chat", "2025", "q"]] {
            let refused = try await sandbox.run(arguments)
            #expect(refused.status == .exited(1), "\(arguments): \(refused)")
            #expect(
                refused.stderr.contains("is the start of 2 chats' ids: 20250614-153012-3fa9c1, 20250614-153012-3fb000"),
                "\(refused.stderr)")
        }
        #expect(try await sandbox.run("chats", "show", "20250614-153012-3fb").status == .exited(0), "unique again")
        #expect(try await sandbox.run("store", "ls", "chats").stdout.split(separator: "\n").count == 2)
    }

    @Test("keep chats rename gives a chat a new title; an empty or multi-line title is refused")
    func rename() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("old title")
        let renamed = try await sandbox.run("chats", "rename", id, "A", "new", "title")
        #expect(renamed.status == .exited(0), "\(renamed)")
        #expect(try await sandbox.chat(id)["title"] as? String == "A new title")
        #expect(try await sandbox.run("chats", "rename", id, " ").status == .exited(2))
        #expect(try await sandbox.run("chats", "rename", id, "two\nlines").status == .exited(2))
        #expect(try await sandbox.chat(id)["title"] as? String == "A new title")
        #expect(try await sandbox.run("chats", "rename", "nowhere", "x").status == .exited(1))
    }

    @Test("export as Markdown quotes the questions and gives the answers; as JSON it imports back as a new chat")
    func exportAndImport() async throws {
        let server = try LoopbackServer(
            LoopbackServer.streaming(
                ["**Paris**\n\n# Why\n```sh\n# not a heading\n```"], usage: (prompt: 5, completion: 1)))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let asked = try await sandbox.run("ask", "--system", "be brief", "capital\nof France?")
        let id = try #require(asked.chatId, "\(asked)")

        let markdown = try await sandbox.run("chats", "export", id)
        #expect(markdown.status == .exited(0), "\(markdown)")
        #expect(markdown.stdout.hasPrefix("# capital\n\nChat `\(id)` · 2 messages"))
        #expect(markdown.stdout.contains("**System prompt:**\n\n> be brief\n"))
        #expect(markdown.stdout.contains("> capital\n> of France?\n"))
        #expect(
            markdown.stdout.contains(
                "**Answer (test-model, at \(server.baseURL), 5 prompt + 1 completion tokens)**:\n\n**Paris**\n"))
        #expect(
            markdown.stdout.contains("\n## Why\n```sh\n# not a heading\n```\n"),
            "the answer's heading under the title's; a code block's # line as it is: \(markdown)")

        let json = try await sandbox.run("chats", "export", id, "--format", "json")
        #expect(json.status == .exited(0))
        let file = sandbox.directory.appending("exported.json")
        try Data(json.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let before = try String(contentsOfFile: sandbox.file("chats", id), encoding: .utf8)

        let imported = try await sandbox.run("chats", "import", file, "--json")
        #expect(imported.status == .exited(0), "\(imported)")
        let copy = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
        let newId = try #require(copy["id"] as? String)
        #expect(newId != id, "the id was taken, so the copy has a new one")
        #expect(try String(contentsOfFile: sandbox.file("chats", id), encoding: .utf8) == before, "never overwritten")
        let original = try await sandbox.chat(id)
        let twin = try await sandbox.chat(newId)
        #expect(twin["system"] as? String == "be brief")
        #expect((twin["messages"] as? [[String: Any]])?.count == 2)
        #expect(
            (twin["messages"] as? [[String: Any]])?[1]["usage"] as? [String: Int]
                == (original["messages"] as? [[String: Any]])?[1]["usage"] as? [String: Int])

        #expect(try await sandbox.run("chats", "export", id, "--format", "pdf").status == .exited(2))
        try Data("{ not a chat".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try await sandbox.run("chats", "import", file)
        #expect(refused.status == .exited(1))
        #expect(refused.stderr.contains("that is not a keep chat: it is not valid JSON"), "\(refused)")
    }

    @Test("keep --version prints the version; keep version --json prints one object")
    func version() async throws {
        let sandbox = try Sandbox()
        let line = try await sandbox.run("--version")
        #expect(line.status == .exited(0))
        #expect(line.stdout.wholeMatch(of: /keep \d+\.\d+\.\d+\n/) != nil, "\(line)")
        let json = try await sandbox.run("version", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect("keep \(object["version"] as? String ?? "")\n" == line.stdout)
        #expect(object["chatFormat"] as? Int == 3)
    }

    @Test(
        "every --json prints exactly one object",
        arguments: [
            ["chats", "--json"], ["settings", "--json"], ["doctor", "--json"], ["whatsnew", "--json"],
            ["usage", "--json"], ["version", "--json"], ["ask", "--json", "hi"], ["chats", "search", "hi", "--json"],
        ])
    func oneObject(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.ask("hi")
        let ran = try await sandbox.run(arguments)
        let parsed = try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8))
        #expect(parsed is [String: Any], "\(arguments): \(ran)")
    }

    @Test("/model and /system in the interactive chat change what the next question is asked with")
    func interactiveModelAndSystem() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        let sandbox = try Sandbox()
        try await sandbox.useRemote(server)
        let chat = try sandbox.start(["chat", "-m", "from-flag"])
        chat.write("one\n/model picked\n/system talk like a pirate\n/system\ntwo\n")
        chat.closeInput()
        #expect(await chat.exit() == .exited(0))
        let bodies = server.requests.compactMap(\.json)
        #expect(bodies.map { $0["model"] as? String } == ["from-flag", "picked"])
        let second = try #require(bodies.last?["messages"] as? [[String: String]])
        #expect(second.first == ["role": "system", "content": "talk like a pirate"])
        #expect(await chat.errors?.waitForEnd().contains("System prompt: talk like a pirate") == true)
    }

    /// A version 1 chat file with one turn, as keep wrote it before format 2.
    static func chatFile(id: String) -> String {
        """
        {"version":1,"id":"\(id)","title":"t","created":"2025-06-14T15:30:12.345Z",
        "updated":"2025-06-14T15:30:12.345Z","engine":"echo","messages":[
        {"role":"user","text":"q","time":"2025-06-14T15:30:12.345Z"},
        {"role":"assistant","text":"a","time":"2025-06-14T15:30:12.345Z"}]}
        """
    }
}
