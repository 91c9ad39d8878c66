import Foundation
import Testing

/// `keep chats` and its subcommands on a real store.
@Suite("keep chats")
struct ChatsCommandTests {
    @Test("an unreadable chat file does not stop keep chats: it is listed with the reason")
    func unreadableChatIsListed() async throws {
        let sandbox = try Sandbox()
        let good = try await sandbox.ask("still here")
        try Data("{ not a chat".utf8).write(to: URL(fileURLWithPath: sandbox.file("chats", "broken")))

        let listed = try await sandbox.run("chats")
        #expect(listed.status == .exited(0), "\(listed)")
        #expect(listed.stdout.contains("\(good)  "))
        #expect(listed.stdout.contains("still here"))
        #expect(listed.stdout.contains("broken  UNREADABLE: it is not valid JSON"), "\(listed)")

        let json = try await sandbox.run("chats", "--json")
        #expect(json.status == .exited(0))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let chats = try #require(report["chats"] as? [[String: Any]])
        #expect(chats.map { $0["id"] as? String } == [good])
        #expect(chats.first?["messages"] as? Int == 2)
        #expect(chats.first?["title"] as? String == "still here")
        let unreadable = try #require(report["unreadable"] as? [[String: String]])
        #expect(unreadable == [["id": "broken", "reason": "it is not valid JSON"]])

        let shown = try await sandbox.run("chats", "show", "broken")
        #expect(shown.status == .exited(1))
        #expect(shown.stderr == "keep: chat \"broken\" cannot be read: it is not valid JSON\n")
        #expect(try String(contentsOfFile: sandbox.file("chats", "broken"), encoding: .utf8) == "{ not a chat")
    }

    @Test("with no chats, keep chats says how to start one")
    func noChats() async throws {
        let listed = try await Sandbox().run("chats")
        #expect(listed.status == .exited(0))
        #expect(listed.stdout == "No chats yet. Start one with `keep`, or `keep ask TEXT`.\n")
    }

    @Test("keep chats show prints the conversation, and --json the whole chat")
    func showAChat() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("line one\nline two")
        let shown = try await sandbox.run("chats", "show", id)
        #expect(shown.status == .exited(0))
        #expect(shown.stdout.hasPrefix("line one\n\(id) · 2 messages · updated "))
        #expect(shown.stdout.hasSuffix("\n\n> line one\n  line two\necho: line one\nline two\n"), "\(shown)")

        let chat = try await sandbox.chat(id)
        #expect(chat["id"] as? String == id)
        #expect(chat["engine"] as? String == "echo")
        let messages = try #require(chat["messages"] as? [[String: String]])
        #expect(messages.map { $0["role"] } == ["user", "assistant"])
        #expect(messages.allSatisfy { $0["time"]?.hasSuffix("Z") == true })
    }

    @Test("keep chats show of a chat longer than one 64 KiB write prints every message whole, in order")
    func showALongChat() async throws {
        let sandbox = try Sandbox()
        let long = String(repeating: "abcdefghij", count: 3_000)
        let id = try await sandbox.ask("first \(long)")
        let second = try await sandbox.run("ask", "--chat", id, "second \(long)")
        #expect(second.status == .exited(0), "\(second)")
        let shown = try await sandbox.run("chats", "show", id)
        #expect(shown.status == .exited(0))
        #expect(shown.stdout.utf8.count > 64 << 10)
        #expect(
            shown.stdout.hasSuffix(
                "\n\n> first \(long)\necho: first \(long)\n\n> second \(long)\necho: second \(long)\n"))
    }

    @Test("keep chats rm removes a chat and its draft; an unknown id is an error")
    func removeAChat() async throws {
        let sandbox = try Sandbox()
        let kept = try await sandbox.ask("keep me")
        let removed = try await sandbox.ask("remove me")
        #expect(try await sandbox.run("store", "put", "drafts", removed, input: "pending").status == .exited(0))

        let rm = try await sandbox.run("chats", "rm", removed)
        #expect(rm.status == .exited(0), "\(rm)")
        #expect(rm.stdout == "Removed chat \(removed).\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.file("chats", removed)))
        #expect(!FileManager.default.fileExists(atPath: sandbox.file("drafts", removed)))
        #expect(try await sandbox.messages(kept) == ["keep me", "echo: keep me"])

        let again = try await sandbox.run("chats", "rm", removed)
        #expect(again.status == .exited(1))
        #expect(again.stderr == "keep: there is no chat \"\(removed)\"; `keep chats` lists them\n")
    }

    @Test("keep chats search finds the text in any case, with the matching line")
    func searchTheChats() async throws {
        let sandbox = try Sandbox()
        let paris = try await sandbox.ask("a trip\nto PARIS in spring")
        _ = try await sandbox.ask("nothing to see")

        let found = try await sandbox.run("chats", "search", "paris")
        #expect(found.status == .exited(0))
        #expect(found.stdout == "\(paris)  a trip\n  > to PARIS in spring\n    to PARIS in spring\n", "\(found)")

        let json = try await sandbox.run("chats", "search", "--json", "Paris", "in")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["text"] as? String == "Paris in")
        let matches = try #require(report["matches"] as? [[String: Any]])
        #expect(matches.map { $0["role"] as? String } == ["user", "assistant"])
        #expect(matches.allSatisfy { $0["chat"] as? String == paris && $0["line"] as? String == "to PARIS in spring" })

        let none = try await sandbox.run("chats", "search", "london")
        #expect(none.status == .exited(0))
        #expect(none.stdout == "No chat contains \"london\".\n")
    }
}
