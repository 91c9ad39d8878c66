import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import Testing

/// What a chat records of servers, roles and images, as optional fields of format 2 that an
/// older build skips, and a chat written by today's release read by this one.
@Suite("What a chat records of its servers, role and images")
struct ChatRecordsServersTests {
    private static let todayId = "20261201-214002-a1b2c3"

    private static func today() throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/chat-format-2-release.json")
        return try String(contentsOf: path, encoding: .utf8)
    }

    @Test("a chat written by today's release reads as it is, with no server name, role or image")
    func readsToday() async throws {
        let storage = MemoryStorage()
        try await storage.write(StorageKey(.chats, Self.todayId), try Self.today())
        let chat = try #require(try await ChatRepository(storage: storage).read(Self.todayId))
        #expect(chat.messages.map(\.text) == ["what is 2+2?", "4"])
        #expect(chat.messages[1].server == "http://127.0.0.1:8080/v1" && chat.messages[1].serverName == nil)
        #expect(chat.role == nil && chat.messages[0].attachments.isEmpty)
        #expect(try await storage.read(StorageKey(.chats, Self.todayId)) == (try Self.today()), "not rewritten")
    }

    @Test("an answer's server name, a question's images and the chat's role survive a save and a read")
    func roundTrip() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        let session = try await ChatSession.start(repository: repository)
        let png = Attachment(
            name: "dot.png", mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        _ = try await session.recordTurn(
            question: "what is it?", answer: "a dot", engine: "remote", server: "http://127.0.0.1:8080/v1",
            serverName: "local", attachments: [png], role: "coder")
        let chat = try #require(try await repository.read(await session.id))
        #expect(chat == (await session.chat))
        #expect(chat.role == "coder")
        #expect(chat.messages[0].attachments == [png])
        #expect(chat.messages[1].serverName == "local")
        let text = try #require(try await storage.read(StorageKey(.chats, chat.id)))
        #expect(text.contains(#""attachments":["#) && text.contains(#""size":8"#))
    }

    @Test("an attachment whose bytes are not the image it says it is makes the chat unreadable; a true one reads")
    func badAttachment() async throws {
        let good = try Self.today().replacingOccurrences(
            of: #""text" : "what is 2+2?","#,
            with:
                #""attachments" : [ { "data" : "R0lGODlh", "name" : "a.gif", "size" : 6, "type" : "image/gif" } ], "text" : "what is 2+2?","#
        )
        let storage = MemoryStorage()
        try await storage.write(StorageKey(.chats, Self.todayId), good)
        let chat = try await ChatRepository(storage: storage).read(Self.todayId)
        #expect(chat?.messages[0].attachments.first?.mediaType == "image/gif", "the check sees a true image")
        let bad = good.replacingOccurrences(of: #""size" : 6"#, with: #""size" : 7"#)
        try await storage.write(StorageKey(.chats, Self.todayId), bad)
        await #expect(throws: ChatError.self) { try await ChatRepository(storage: storage).read(Self.todayId) }
    }
}
