import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import Testing

/// A chat's system prompt and an answer's model, server and token usage (since format 2),
/// and the version 1 files still read; the ids people type; import that never overwrites.
@Suite("Chat format 2, id prefixes, import")
struct ChatFormatVersionTests {
    /// The chat `keep ask` of the release before format 2 wrote (`Fixtures/chat-format-1.json`).
    static let fixtureId = "20261201-053548-7fd2d2"

    static func fixture() throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/chat-format-1.json")
        return try String(contentsOf: path, encoding: .utf8)
    }

    @Test("a chat file written by the release before format 2 reads as it is, and is not rewritten")
    func readsFormatOne() async throws {
        let text = try Self.fixture()
        #expect(text.contains("\"version\" : 1"), "the fixture is a version 1 file")
        let storage = MemoryStorage()
        try await storage.write(StorageKey(.chats, Self.fixtureId), text)
        let chat = try #require(try await ChatRepository(storage: storage).read(Self.fixtureId))
        #expect(chat.title == "hello, fixture")
        #expect(chat.engine == "echo")
        #expect(chat.system == nil)
        #expect(
            chat.messages.map(\.text) == [
                "hello, fixture", "echo: hello, fixture", "a second question\nwith two lines",
                "echo: a second question\nwith two lines",
            ])
        #expect(chat.messages.allSatisfy { $0.model == nil && $0.server == nil && $0.usage == nil })
        #expect(try await ChatRepository(storage: storage).listUnreadable().isEmpty)
        // Reading migrates nothing: the file is byte for byte what the old release wrote.
        #expect(try await storage.read(StorageKey(.chats, Self.fixtureId)) == text)
    }

    @Test("a system prompt, and each answer's model, server and usage, survive a save and a read")
    func formatTwoRoundTrip() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        let session = try await ChatSession.start(repository: repository)
        _ = try await session.recordTurn(
            question: "q", answer: "a", engine: "remote", model: "qwen3", server: "http://127.0.0.1:8080/v1",
            usage: TokenUsage(promptTokens: 9, completionTokens: 2), system: "answer briefly")
        _ = try await session.recordTurn(question: "q2", answer: "a2", engine: "remote", model: "other")
        let chat = try #require(try await repository.read(await session.id))
        #expect(chat == (await session.chat))
        #expect(chat.system == "answer briefly", "a system prompt given for a turn is the chat's own")
        #expect(chat.messages[1].model == "qwen3")
        #expect(chat.messages[1].server == "http://127.0.0.1:8080/v1")
        #expect(chat.messages[1].usage == TokenUsage(promptTokens: 9, completionTokens: 2))
        #expect(chat.messages[3].model == "other" && chat.messages[3].usage == nil)
        #expect(chat.messages[0].model == nil, "a question has no model")

        // The first turn's line holds the system prompt it set, and its answer's facts.
        let text = try #require(try await storage.read(StorageKey(.chats, chat.id)))
        let lines = text.split(separator: "\n").map(String.init)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(first["system"] as? String == "answer briefly")
        let reply = try #require(first["reply"] as? [String: Any])
        #expect(reply["usage"] as? [String: Int] == ["prompt": 9, "completion": 2])
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any])
        #expect(second["system"] == nil, "a turn that set no system prompt says nothing of it")
        #expect(
            Set(try #require(second["reply"] as? [String: Any]).keys) == ["model", "text"], "nothing to say is left out"
        )
    }

    @Test(
        "a stored message with the system role, or a negative token count, makes the chat unreadable",
        arguments: [
            (#""role":"system","text":"x","time":"2025-06-15T15:06:40Z""#, false),
            (
                #""role":"assistant","text":"x","time":"2025-06-15T15:06:40Z","usage":{"prompt":-1,"completion":2}"#,
                false
            ),
            (#""role":"assistant","text":"x","time":"2025-06-15T15:06:40Z","usage":{"prompt":1,"completion":2}"#, true),
            (#""role":"assistant","text":"x","time":"2025-06-15T15:06:40Z","model":"m","server":"http://s""#, true),
        ])
    func unreadableMessages(message: String, readable: Bool) async throws {
        let storage = MemoryStorage()
        let text = """
            {"version":2,"id":"c","title":"t","created":"2025-06-15T15:06:40Z","updated":"2025-06-15T15:06:40Z",
            "messages":[{\(message)}]}
            """
        try await storage.write(StorageKey(.chats, "c"), text)
        let unreadable = try await ChatRepository(storage: storage).listUnreadable()
        #expect(unreadable.isEmpty == readable, "\(unreadable)")
    }

    @Test("a unique start of an id names its chat or draft; one shared by several lists them all; none is nil")
    func idPrefixes() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        for id in ["20250614-153012-3fa9c1", "20250614-153012-3fb000", "20250701-090000-aaaaaa"] {
            try await repository.save(Chat(id: id, created: Date()))
        }
        try await repository.saveDraft("waiting", for: "20250801-000000-dddddd")
        #expect(try await repository.resolve("20250701") == "20250701-090000-aaaaaa")
        #expect(try await repository.resolve("202508") == "20250801-000000-dddddd", "a draft-only chat counts")
        #expect(try await repository.resolve("20250614-153012-3fa9c1") == "20250614-153012-3fa9c1")
        await #expect(
            throws: ChatError.ambiguousId(
                "20250614", candidates: ["20250614-153012-3fa9c1", "20250614-153012-3fb000"])
        ) { try await repository.resolve("20250614") }
        #expect(try await repository.resolve("1999") == nil)
        #expect(try await repository.resolve("") == nil)
        let message = ChatError.ambiguousId("2025", candidates: ["a", "b"]).description
        #expect(message.contains("a, b") && message.contains("2025"))
    }

    @Test("importing a chat keeps its id when it is free, and takes a new one rather than overwrite")
    func importNeverOverwrites() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        var original = Chat(id: "20250614-153012-3fa9c1", title: "mine", created: Date(timeIntervalSince1970: 1))
        original.messages = [ChatMessage(role: .user, text: "q", time: Date(timeIntervalSince1970: 1))]
        let exported = try repository.exportText(original)

        let first = (try await repository.importChat(exported)).chat
        #expect(first.id == original.id, "a free id is kept")
        let second = (try await repository.importChat(exported)).chat
        #expect(second.id != original.id, "a taken id is not written over")
        #expect(second.title == "mine" && second.messages == original.messages)
        #expect(try await repository.read(original.id) == first)
        #expect(try await repository.list().count == 2)

        try await repository.saveDraft("waiting", for: "20250101-000000-000000")
        let draftHolder = Chat(id: "20250101-000000-000000", created: Date(timeIntervalSince1970: 1))
        let third = (try await repository.importChat(try repository.exportText(draftHolder))).chat
        #expect(third.id != draftHolder.id, "an id a draft holds is taken too")

        // A file name of more than 255 bytes: the file store cannot hold that id.
        let fixture = try StoreKind.fileStore.fixture()
        let files = ChatRepository(storage: try fixture.open())
        let unstorable = Chat(id: String(repeating: "x", count: 300), created: Date(timeIntervalSince1970: 1))
        let fourth = (try await files.importChat(try files.exportText(unstorable))).chat
        #expect(fourth.id != unstorable.id, "an id the store cannot hold gets a new one, not an error")
        #expect(try await files.read(fourth.id) == fourth)
        withExtendedLifetime(fixture) {}
    }

    @Test(
        "an imported chat whose id is not of keep's form gets a new id, and says so; one of keep's form keeps it",
        arguments: [
            "20250614-153012-3fa9c1\u{1B}]0;x\u{07}", "\u{202E}20250614-153012-3fa9c1", "2025061415301200000000",
            "20250614-153012-3FA9C1", "../20250614-153012", "", "x",
        ])
    func importRenamesForeignIds(_ foreign: String) async throws {
        let repository = ChatRepository(storage: MemoryStorage())
        let own = "20250614-153012-3fa9c1"
        let kept = try await repository.importChat(
            try repository.exportText(Chat(id: own, title: "t", created: Date(timeIntervalSince1970: 1))))
        #expect(kept.chat.id == own && kept.newId == nil && kept.idInFile == own, "the pair: keep's own form is kept")

        let imported = try await repository.importChat(
            try repository.exportText(Chat(id: foreign, title: "t", created: Date(timeIntervalSince1970: 1))))
        #expect(imported.newId == .notKeepsForm)
        #expect(imported.idInFile == foreign)
        #expect(ChatRepository.isOwnIdForm(imported.chat.id) && imported.chat.id != own)
        #expect(try await repository.read(imported.chat.id)?.title == "t")
        #expect(try await repository.list().map(\.id).allSatisfy(ChatRepository.isOwnIdForm))
    }

    @Test(
        "importing text that is not a chat is refused with the reason, and stores nothing",
        arguments: [
            ("not json", "not valid JSON"), (#"{"version":9,"id":"x"}"#, "newer keep"),
            (#"{"version":1,"id":"x","title":"t"}"#, "is missing"),
        ])
    func importRefuses(text: String, reason: String) async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        await #expect {
            try await repository.importChat(text)
        } throws: { error in
            guard let error = error as? ChatError, error.code == .notAChat, let said = error.reason else {
                return false
            }
            return said.contains(reason)
        }
        #expect(try await storage.listIds(.chats).isEmpty)
    }
}
