import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Chat format 3: a head line and one line per event, so that a turn is one append; the
/// files of older formats still read, and converted once, by the first change.
@Suite("Chat format 3: a head and records")
struct ChatFormatThreeTests {
    static let fixtureId = "20261201-053548-3f0c9a"
    static let converted = "20261201-053548-7fd2d2"
    static let time = Date(timeIntervalSince1970: 1_796_103_348.727)

    static func fixture(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/" + name)
        return try String(contentsOf: path, encoding: .utf8)
    }

    /// The chat the format 3 fixture (and the format 2 one) hold.
    static let fixtureChat = Chat(
        id: fixtureId, title: "a renamed fixture",
        messages: [
            ChatMessage(role: .user, text: "hello, fixture \"quoted\"", time: time),
            ChatMessage(
                role: .assistant, text: "hi ünïcödé 🙂\nsecond line\ttab", time: time, model: "qwen3",
                server: "http://127.0.0.1:8080/v1", usage: TokenUsage(promptTokens: 9, completionTokens: 2)),
            ChatMessage(role: .user, text: "a second question\nwith two lines", time: time),
            ChatMessage(role: .assistant, text: "echo: a second question\nwith two lines", time: time),
        ], created: time, updated: time, engine: "echo", system: nil)

    @Test("a chat streamed is its head with the count of its messages first, then every message in order, as read")
    func aChatStreamsMessageByMessage() async throws {
        // Format 3, read line by line; format 2, an object read whole.
        for file in ["chat-format-3.jsonl", "chat-format-2.json"] {
            let id = Self.fixtureId
            let repository = ChatRepository(
                storage: MemoryStorage([StorageKey(.chats, id): try Self.fixture(file)]))
            let whole = try #require(try await repository.read(id))
            var heads: [(Chat, Int)] = []
            var messages: [ChatMessage] = []
            let shown = try await repository.stream(
                id, head: { chat, count in heads.append((chat, count)) },
                message: { message in
                    // The head came first, and only once.
                    #expect(heads.count == 1)
                    messages.append(message)
                })
            #expect(shown)
            #expect(messages == whole.messages && !messages.isEmpty, "\(file)")
            let head = try #require(heads.first)
            var bare = whole
            bare.messages = []
            #expect(head.0 == bare && head.1 == whole.messages.count, "\(file)")
        }
        let repository = ChatRepository(storage: MemoryStorage())
        // None there: neither is called; a damaged one throws before the head.
        #expect(
            try await repository.stream("20261201-053548-000000", head: { _, _ in Issue.record() }, message: { _ in })
                == false)
        let damaged = ChatRepository(
            storage: MemoryStorage([
                StorageKey(.chats, Self.fixtureId): try Self.fixture("chat-format-3.jsonl") + "{\"type\":\n"
            ]))
        await #expect(throws: ChatError.self) {
            _ = try await damaged.stream(
                Self.fixtureId, head: { _, _ in Issue.record("a damaged chat had a head") }, message: { _ in })
        }
    }

    @Test(
        "a search decodes only the lines it lets through, finds there what a whole read does, and still sees damage")
    func aSearchDecodesOnlyTheLinesItAdmits() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        let session = try await ChatSession.start(repository: repository)
        for turn in 0..<40 {
            _ = try await session.recordTurn(
                question: "question \(turn) \(turn % 3 == 0 ? "needle" : "hay")",
                answer: "answer \(turn) \(turn % 5 == 0 ? "needle" : "straw") \"ü\"\n", engine: "echo")
        }
        let id = await session.id
        let whole = try #require(try await repository.read(id))
        var bare = whole
        bare.messages = []
        var generator = SeededGenerator(seed: 25)
        for _ in 0..<30 {
            // Each turn is one line of two messages, offered only when its line is let through
            // (the first, which names the chat, is decoded for its title whatever the pass says).
            let admitted = Set((0..<40).filter { _ in Bool.random(using: &generator) })
            var line = 0
            let found = try #require(
                try await repository.messages(
                    of: id, admitting: { _ in true },
                    lineAdmitting: { _ in
                        defer { line += 1 }
                        return admitted.contains(line)
                    }, where: { $0.text.contains("needle") }))
            #expect(line == 40, "every line after the head is offered once")
            #expect(found.chat == bare)
            let expected = whole.messages.enumerated().filter { index, message in
                admitted.contains(index / 2) && message.text.contains("needle")
            }
            #expect(found.messages.map(\.index) == expected.map(\.offset))
            #expect(found.messages.map(\.message) == expected.map(\.element))
        }
        let turnedDown = try await repository.messages(
            of: id, admitting: { _ in false }, lineAdmitting: { _ in true }, where: { _ in true })
        #expect(turnedDown == nil, "a chat whose stored text is turned down is not read")

        // A control character inside a text no pass decodes is still damage.
        let key = StorageKey(.chats, id)
        let text = try #require(try await storage.read(key))
        try await storage.write(key, text.replacingOccurrences(of: "answer 7 ", with: "answer 7\u{1}"))
        await #expect(throws: ChatError.self) {
            _ = try await repository.messages(
                of: id, admitting: { _ in true }, lineAdmitting: { _ in false }, where: { _ in true })
        }

        // An older format is read whole, and searched the same way.
        let older = ChatRepository(
            storage: MemoryStorage([StorageKey(.chats, Self.fixtureId): try Self.fixture("chat-format-2.json")]))
        let oldFound = try #require(
            try await older.messages(
                of: Self.fixtureId, admitting: { _ in true }, lineAdmitting: { _ in false },
                where: { $0.text.contains("second") }))
        #expect(oldFound.messages.map(\.index) == [1, 2, 3])
    }

    @Test("the format 3 fixture a build wrote reads as the chat it was, and this build writes it byte for byte")
    func theFormatThreeFixtureReads() async throws {
        let text = try Self.fixture("chat-format-3.jsonl")
        let storage = MemoryStorage([StorageKey(.chats, Self.fixtureId): text])
        let repository = ChatRepository(storage: storage, now: { Date(timeIntervalSince1970: 1_796_103_400.5) })
        let stored = try #require(try await repository.stored(Self.fixtureId))
        #expect(stored.chat == Self.fixtureChat)
        #expect(stored.format == 3 && stored.isAppendable)
        // The same turns, title and system prompt, recorded by this build, are the same bytes.
        let again = MemoryStorage()
        let writer = ChatRepository(storage: again, now: { Date(timeIntervalSince1970: 1_796_103_400.5) })
        let session = ChatSession(
            chat: Chat(id: Self.fixtureId, created: Self.time), repository: writer, now: { Self.time })
        _ = try await session.recordTurn(
            question: "hello, fixture \"quoted\"", answer: "hi ünïcödé 🙂\nsecond line\ttab", engine: "remote",
            model: "qwen3", server: "http://127.0.0.1:8080/v1", usage: TokenUsage(promptTokens: 9, completionTokens: 2),
            system: "answer briefly")
        _ = try await session.recordTurn(
            question: "a second question\nwith two lines", answer: "echo: a second question\nwith two lines",
            engine: "echo")
        let titled = try await writer.setTitle("a renamed fixture", in: await session.stored)
        let cleared = try await writer.setSystem(nil, in: titled)
        #expect(cleared.chat == Self.fixtureChat)
        #expect(try await again.read(StorageKey(.chats, Self.fixtureId)) == text)
    }

    @Test("a format 2 file reads as it is, is not rewritten by reading, and is what an export writes")
    func theFormatTwoFixtureReads() async throws {
        let text = try Self.fixture("chat-format-2.json")
        #expect(text.contains("\"version\" : 2"), "the fixture is a version 2 file")
        let storage = MemoryStorage([StorageKey(.chats, Self.fixtureId): text])
        let repository = ChatRepository(storage: storage)
        let stored = try #require(try await repository.stored(Self.fixtureId))
        // Format 2 keeps no history of system prompts: the one set by the first turn stands.
        var expected = Self.fixtureChat
        expected.system = nil
        #expect(stored.chat == expected && stored.format == 2 && !stored.isAppendable)
        #expect(try await storage.read(StorageKey(.chats, Self.fixtureId)) == text)
        #expect(try repository.exportText(stored.chat) == text, "an export is the format 2 object")
    }

    @Test("the first turn in an older chat rewrites it once in format 3, and every later turn is one append")
    func anOlderChatIsConvertedByItsFirstTurn() async throws {
        let v1 = try ChatFormatVersionTests.fixture()
        let storage = FaultyStorage(MemoryStorage([StorageKey(.chats, Self.converted): v1]))
        let repository = ChatRepository(storage: storage)
        let session = try #require(
            try await ChatSession.open(
                Self.converted, repository: repository, now: { Date(timeIntervalSince1970: 1_796_103_500.25) }))
        #expect(await session.stored.format == 1)
        _ = try await session.recordTurn(question: "a third question", answer: "echo: a third question", engine: "echo")
        let firstCalls = await storage.calls
        #expect(firstCalls[.write] == 1 && firstCalls[.append] == nil, "not one whole write")
        let text = try #require(try await storage.read(StorageKey(.chats, Self.converted)))
        #expect(text == (try Self.fixture("chat-format-3-converted.jsonl")), "the conversion is not the fixture")
        #expect(await session.stored.isAppendable)

        for turn in 4...6 {
            _ = try await session.recordTurn(question: "question \(turn)", answer: "answer \(turn)", engine: "echo")
        }
        let laterCalls = await storage.calls
        #expect(laterCalls[.write] == 1 && laterCalls[.append] == 3, "a later turn was not an append")
        let read = try #require(try await repository.read(Self.converted))
        #expect(read == (await session.chat))
        #expect(read.messages.count == 4 + 2 * 4 && read.title == "hello, fixture")
    }

    @Test("the converted fixture reads as the older chat with its turn")
    func theConvertedFixtureReads() async throws {
        let old = MemoryStorage([StorageKey(.chats, Self.converted): try ChatFormatVersionTests.fixture()])
        var expected = try #require(try await ChatRepository(storage: old).read(Self.converted))
        let turnTime = Date(timeIntervalSince1970: 1_796_103_500.25)
        expected.messages += [
            ChatMessage(role: .user, text: "a third question", time: turnTime),
            ChatMessage(role: .assistant, text: "echo: a third question", time: turnTime),
        ]
        expected.updated = turnTime
        let storage = MemoryStorage([
            StorageKey(.chats, Self.converted): try Self.fixture("chat-format-3-converted.jsonl")
        ])
        #expect(try await ChatRepository(storage: storage).read(Self.converted) == expected)
    }

    @Test("a new chat's first turn is one whole write of its head and the turn")
    func aNewChatsFirstTurnIsOneWrite() async throws {
        let storage = FaultyStorage(MemoryStorage())
        let session = try await ChatSession.start(repository: ChatRepository(storage: storage))
        _ = try await session.recordTurn(question: "first", answer: "one", engine: "echo")
        let calls = await storage.calls
        #expect(calls[.write] == 1 && calls[.append] == nil)
        let text = try #require(try await storage.read(StorageKey(.chats, await session.id)))
        #expect(text.split(separator: "\n").count == 2 && text.hasSuffix("\n"))
        #expect(await session.chat.title == "first", "the title comes from the first question")
    }

    @Test(
        "an unfinished last line, without its newline or holding a NUL, is ignored: a turn never acknowledged",
        arguments: [
            #"{"engine":"echo","question":{"text":"lost"},"reply":{"te"#,
            "{\"engine\":\"echo\",\"question\":{\"text\":\"lo\u{0}\u{0}\u{0}\u{0}\"},\"type\":\"turn\"}\n",
            "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}", "{",
        ])
    func anUnfinishedLineIsIgnored(tail: String) async throws {
        let text = try Self.fixture("chat-format-3.jsonl")
        let storage = MemoryStorage([StorageKey(.chats, Self.fixtureId): text + tail])
        let repository = ChatRepository(storage: storage)
        #expect(try await repository.read(Self.fixtureId) == Self.fixtureChat)
        #expect(try await repository.listUnreadable().isEmpty)
    }

    @Test(
        "a damaged line anywhere but the last makes the chat unreadable, naming the line and never quoting it",
        arguments: [
            (1, #"{"created":"MARK","id":"20261201-053548-3f0c9a","version":3}"#),
            (2, #"{"type":"turn","time":"2026-12-01T05:35:48.727Z","MARK":1}"#),
            (3, #"{"role":"wizard","text":"MARK","time":"2026-12-01T05:35:48.727Z","type":"message"}"#),
            (4, #"{"time":"yesterday","title":"MARK","type":"title"}"#), (2, ""),
            (3, "{\"time\":\"2026-12-01T05:36:40.500Z\",\"title\":\"MA\u{0}RK\",\"type\":\"title\"}"),
            (2, #"{"time":"2026-12-01T05:36:40.500Z","type":"hologram","MARK":true}"#),
        ])
    func aDamagedLineMakesTheChatUnreadable(line: Int, replacement: String) async throws {
        var lines = try Self.fixture("chat-format-3.jsonl").split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        lines[line - 1] = replacement
        let storage = MemoryStorage([StorageKey(.chats, Self.fixtureId): lines.joined(separator: "\n")])
        let repository = ChatRepository(storage: storage)
        let unreadable = try await repository.listUnreadable()
        let reason = try #require(unreadable.first?.reason)
        #expect(reason.contains("line \(line)"), "\(reason)")
        #expect(!reason.contains("MARK"), "the reason quotes the chat: \(reason)")
        await #expect(throws: ChatError.self) { try await repository.read(Self.fixtureId) }
        #expect(try await repository.list().isEmpty)
    }

    @Test("a head whose id is not the file's is refused, and a newer format is named as such")
    func aMovedOrNewerChatIsRefused() async throws {
        let text = try Self.fixture("chat-format-3.jsonl")
        let newer = "{\"created\":\"2026-12-01T05:35:48.727Z\",\"id\":\"n\",\"version\":4}\n{\"type\":\"x\"}\n"
        let storage = MemoryStorage([StorageKey(.chats, "moved"): text, StorageKey(.chats, "n"): newer])
        let unreadable = try await ChatRepository(storage: storage).listUnreadable()
        #expect(unreadable.map(\.id) == ["moved", "n"])
        #expect(unreadable[0].reason.contains("different chat"))
        #expect(unreadable[1].reason.contains("format 4 by a newer keep"), "\(unreadable[1].reason)")
    }

    @Test("a turn in a chat removed meanwhile writes nothing and says the chat was removed")
    func aTurnInARemovedChatWritesNothing() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        let session = try await ChatSession.start(repository: repository)
        _ = try await session.recordTurn(question: "first", answer: "one", engine: "echo")
        let id = await session.id
        #expect(try await repository.delete(id))
        await #expect(throws: ChatError.removed(id)) {
            try await session.recordTurn(question: "late", answer: "too late", engine: "echo")
        }
        #expect(try await storage.read(StorageKey(.chats, id)) == nil, "a late turn re-created a removed chat")
        #expect(await session.chat.messages.count == 2)
    }

    @Test("a title and a system prompt are each one append, and a title set by hand outlasts later turns")
    func titleAndSystemAreAppends() async throws {
        let storage = FaultyStorage(MemoryStorage())
        let repository = ChatRepository(storage: storage)
        let session = try await ChatSession.start(repository: repository)
        _ = try await session.recordTurn(question: "first question", answer: "one", engine: "echo")
        var stored = try await repository.setTitle("my title", in: await session.stored)
        stored = try await repository.setSystem("be brief", in: stored)
        let calls = await storage.calls
        #expect(calls[.append] == 2 && calls[.write] == 1)
        let reopened = try #require(try await ChatSession.open(stored.chat.id, repository: repository))
        _ = try await reopened.recordTurn(question: "second question", answer: "two", engine: "echo")
        let read = try #require(try await repository.read(stored.chat.id))
        #expect(read.title == "my title" && read.system == "be brief" && read.messages.count == 4)
        #expect(read == (await reopened.chat))
        #expect(try await repository.setTitle("", in: await reopened.stored).chat.title == "")
    }

    @Test("a chat saved whole reads back exactly, whatever its title, engine, times and messages")
    func aSavedChatReadsBackExactly() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        let start = Date(timeIntervalSince1970: 1_750_000_000.5)
        let chats = [
            Chat(id: "empty", created: start),
            Chat(
                id: "untitled", title: "", messages: [ChatMessage(role: .user, text: "q", time: start)], created: start),
            Chat(
                id: "odd", title: "t",
                messages: [
                    ChatMessage(role: .user, text: "q1", time: start),
                    ChatMessage(role: .user, text: "q2", time: start),
                    ChatMessage(role: .assistant, text: "a", time: start.addingTimeInterval(3), model: "m"),
                ], created: start, updated: start.addingTimeInterval(-5), engine: nil, system: ""),
        ]
        for chat in chats {
            try await repository.save(chat)
            #expect(try await repository.read(chat.id) == chat, "\(chat.id)")
        }
    }

    @Test("export is the format 2 object, and both an export and a chat file's lines import")
    func exportAndImport() async throws {
        let repository = ChatRepository(storage: MemoryStorage())
        let exported = try repository.exportText(Self.fixtureChat)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(exported.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 2)
        let imported = try await repository.importChat(exported).chat
        #expect(imported == Self.fixtureChat)
        let fromLines = try await repository.importChat(try Self.fixture("chat-format-3.jsonl")).chat
        #expect(fromLines.id != Self.fixtureId, "a taken id is not written over")
        #expect(fromLines.messages == Self.fixtureChat.messages && fromLines.title == Self.fixtureChat.title)
        #expect(try await repository.stored(fromLines.id)?.format == 3, "an import is stored in format 3")
    }
}
