import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("How session persistence works")
struct ChatTests {
    @Test("a completed turn survives a relaunch", arguments: StoreKind.allCases)
    func aCompletedTurnSurvives(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let clock = SteppingClock()
        let session = try await ChatSession.start(
            repository: ChatRepository(storage: try fixture.open(), now: clock.now), now: clock.now)

        let first = await session.record(question: "What is 2 + 2?\nShow work.", answer: "4 — «vier» 🙂", engine: "echo")
        let second = await session.record(question: "And 3 + 3?", answer: "6", engine: "remote")
        #expect(first == RecordedTurn(questionIndex: 0, answerIndex: 1))
        #expect(second == RecordedTurn(questionIndex: 2, answerIndex: 3))

        let relaunched = ChatRepository(storage: try fixture.open())
        let chat = try #require(try await relaunched.read(await session.id))
        #expect(chat == (await session.chat))
        #expect(chat.messages.map(\.role) == [.user, .assistant, .user, .assistant])
        #expect(chat.messages.map(\.text) == ["What is 2 + 2?\nShow work.", "4 — «vier» 🙂", "And 3 + 3?", "6"])
        #expect(chat.title == "What is 2 + 2?")
        #expect(chat.engine == "remote")
        #expect(chat.updated > chat.created)
    }

    @Test("an in-flight turn is never written", arguments: StoreKind.allCases)
    func anInFlightTurnIsNotWritten(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let storage = FaultyStorage(try fixture.open())
        let session = try await ChatSession.start(repository: ChatRepository(storage: storage))
        await session.record(question: "first", answer: "done", engine: "echo")
        let writesBefore = await storage.written

        // The answer to this question is still streaming when the app is killed.
        try await session.begin(question: "second, never answered")

        let id = await session.id
        #expect(await storage.written == writesBefore + [StorageKey(.drafts, id)])
        let chat = try #require(try await ChatRepository(storage: try fixture.open()).read(id))
        #expect(chat.messages.map(\.text) == ["first", "done"])
    }

    @Test(
        "a question whose answer never came is offered again, and cleared when it is sent",
        arguments: StoreKind.allCases)
    func anUnansweredQuestionIsOfferedAgain(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let session = try await ChatSession.start(repository: ChatRepository(storage: try fixture.open()))
        let id = await session.id
        try await session.begin(question: "are you there?")
        // A new chat whose first answer never came is not stored, but its question is.
        let repository = ChatRepository(storage: try fixture.open())
        #expect(try await repository.read(id) == nil)
        #expect(try await repository.draftIds() == [id])

        let reopened = try #require(try await ChatSession.open(id, repository: repository))
        #expect(try await reopened.draft() == "are you there?")
        #expect(await reopened.chat.messages.isEmpty)

        let turn = await reopened.record(question: "are you there?", answer: "yes", engine: "echo")
        #expect(turn == RecordedTurn(questionIndex: 0, answerIndex: 1))
        #expect(try await reopened.draft() == nil)
        #expect(try await repository.draftIds() == [])
        #expect(try await repository.read(id)?.messages.count == 2)
    }

    @Test(
        "a turn whose write failed answers nil and leaves the chat and the draft as they were",
        arguments: StoreKind.allCases)
    func aFailedWriteAnswersNil(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let storage = FaultyStorage(try fixture.open())
        let session = try await ChatSession.start(repository: ChatRepository(storage: storage))
        await session.record(question: "first", answer: "one", engine: "echo")
        let before = await session.chat
        try await session.begin(question: "second")

        // A full disk fails the append the second turn is, as it fails any write.
        await storage.fail([.write, .append], errno: ENOSPC)
        #expect(await session.record(question: "second", answer: "two", engine: "echo") == nil)
        do {
            _ = try await session.recordTurn(question: "second", answer: "two", engine: "echo")
            Issue.record("a turn was recorded on a full disk")
        } catch {
            guard let storageError = error.storage else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(storageError.code == .full)
        }
        #expect(await session.chat == before)
        #expect(try await session.draft() == "second")

        // The pair: once the disk has room, the same turn is recorded after the first.
        await storage.heal()
        #expect(
            await session.record(question: "second", answer: "two", engine: "echo")
                == RecordedTurn(questionIndex: 2, answerIndex: 3))
        #expect(try await session.draft() == nil)
    }

    @Test("an unreadable chat is skipped rather than crashing the list", arguments: StoreKind.allCases)
    func anUnreadableChatIsSkipped(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let storage = FaultyStorage(try fixture.open())
        let clock = SteppingClock()
        let repository = ChatRepository(storage: storage, now: clock.now)
        let older = try await ChatSession.start(repository: repository, now: clock.now)
        await older.record(question: "older", answer: "a", engine: "echo")
        let newer = try await ChatSession.start(repository: repository, now: clock.now)
        await newer.record(question: "newer", answer: "b", engine: "echo")
        let good = try #require(try await repository.read(await older.id))

        let time = "2025-06-15T15:06:40.000Z"
        var junk: [(id: String, text: String, reason: String)] = [
            ("not-json", "{ this is not json", "not valid JSON"),
            ("newer-format", #"{"version": 9, "shape": "new"}"#, "newer keep"),
            ("newer-lines", "{\"id\":\"newer-lines\",\"version\":4}\n{\"type\":\"hologram\"}\n", "newer keep"),
            (
                "no-messages",
                #"{"version": 1, "id": "no-messages", "title": "", "created": "\#(time)", "updated": "\#(time)"}"#,
                "messages is missing"
            ),
            ("bad-role", try Self.chatText(id: "bad-role", role: "wizard", time: time), "neither user nor assistant"),
            ("bad-time", try Self.chatText(id: "bad-time", role: "user", time: "yesterday"), "not an ISO 8601 time"),
            ("moved", try Self.chatText(id: "somewhere-else", role: "user", time: time), "different chat"),
            ("empty", "", "not valid JSON"),
        ]
        for item in junk {
            try await storage.write(StorageKey(.chats, item.id), item.text)
        }
        // A file whose bytes are not UTF-8, as the store reports it.
        let notText = StorageKey(.chats, "not-text")
        try await storage.write(notText, "placeholder")
        await storage.fail(
            [.read], with: StorageError(code: .corrupt, operation: "read", path: "not-text", reason: "not UTF-8"),
            only: notText)
        junk.append(("not-text", "", "not UTF-8"))

        let chats = try await repository.list()
        #expect(chats.map(\.id) == [await newer.id, await older.id])
        #expect(chats.last == good)

        let unreadable = try await repository.listUnreadable()
        #expect(unreadable.map(\.id) == junk.map(\.id).sorted())
        for item in junk {
            let reason = unreadable.first { $0.id == item.id }?.reason ?? ""
            #expect(reason.contains(item.reason), "\(item.id): \(reason)")
        }
        await #expect(throws: ChatError.self) { try await repository.read("bad-role") }
        #expect(try await repository.search("older").map(\.chatId) == [await older.id])
    }

    @Test("a chat is stored in format 3: a head line, then one line per turn, each a JSON object with sorted keys")
    func aChatIsStoredAsLines() async throws {
        let storage = MemoryStorage()
        let session = try await ChatSession.start(repository: ChatRepository(storage: storage))
        await session.record(question: "hi", answer: "hello", engine: "echo")
        await session.record(question: "and\nagain", answer: "hello again", engine: "echo")
        let text = try #require(try await storage.read(StorageKey(.chats, await session.id)))
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "a head and two turns: \(lines.count) lines")
        let objects = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(Set(objects[0].keys) == ["version", "id", "created"])
        #expect(objects[0]["version"] as? Int == 3)
        #expect(objects[0]["id"] as? String == (await session.id))
        #expect((objects[0]["created"] as? String)?.hasSuffix("Z") == true)
        for turn in objects.dropFirst() {
            #expect(Set(turn.keys) == ["engine", "question", "reply", "time", "type"])
            #expect(turn["type"] as? String == "turn" && turn["engine"] as? String == "echo")
        }
        #expect((objects[2]["question"] as? [String: String])?["text"] == "and\nagain")
        #expect((objects[2]["reply"] as? [String: String])?["text"] == "hello again")
        // Keys sorted, no whitespace: each line is exactly what a canonical encoder writes.
        for (line, object) in zip(lines, objects) {
            let canonical = try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            #expect(line == String(decoding: canonical, as: UTF8.self))
        }
    }

    @Test(
        "a chat's times survive any number of saves, to the millisecond",
        arguments: [1_718_379_012.345, 1_718_379_012.3456789, 1_750_000_000.999_9, 0.001, -1.5, 4_102_444_800.007])
    func timesSurviveSaves(seconds: Double) async throws {
        let repository = ChatRepository(storage: MemoryStorage())
        let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: seconds) }
        let session = try await ChatSession.start(repository: repository, now: clock)
        await session.record(question: "q", answer: "a", engine: "echo")
        var chat = try #require(try await repository.read(await session.id))
        #expect(chat == (await session.chat))
        #expect(abs(chat.created.timeIntervalSince1970 - seconds) <= 0.0005)
        for _ in 0..<5 {
            try await repository.save(chat)
            let reread = try #require(try await repository.read(chat.id))
            #expect(reread == chat)
            chat = reread
        }
    }

    @Test("a time written by hand with or without a fraction reads, and one that is not UTC ISO 8601 does not")
    func handWrittenTimes() async throws {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        for (time, readable) in [
            ("2025-06-15T15:06:40Z", true), ("2025-06-15T15:06:40.5Z", true), ("2025-06-15T15:06:40.123456Z", true),
            ("2025-06-15T15:06:40+02:00", false), ("2025-06-15T15:06:40.Z", false), ("2025-06-15 15:06:40Z", false),
            ("15:06:40", false),
        ] {
            let text = try Self.chatText(id: "c", role: "user", time: time)
            try await storage.write(StorageKey(.chats, "c"), text)
            #expect((try await repository.listUnreadable()).isEmpty == readable, "\(time)")
        }
    }

    @Test("new chat ids are safe for any store, unique, and sort by creation time")
    func newIdsAreSafeAndSortable() async throws {
        let clock = SteppingClock()
        let repository = ChatRepository(storage: MemoryStorage(), now: clock.now)
        var ids: [String] = []
        for _ in 0..<20 { ids.append(try await repository.newId()) }

        let shape = /\d{8}-\d{6}-[0-9a-f]{6}/
        for id in ids { #expect(id.wholeMatch(of: shape) != nil, "\(id)") }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        #expect(ids.first?.hasPrefix("20250615-150641-") == true)
    }

    @Test("deleting a chat removes its draft too, and says whether there was one", arguments: StoreKind.allCases)
    func deleteRemovesChatAndDraft(kind: StoreKind) async throws {
        // The fixture owns the test's directory: it must live as long as the store.
        let fixture = try kind.fixture()
        let repository = ChatRepository(storage: try fixture.open())
        let session = try await ChatSession.start(repository: repository)
        await session.record(question: "q", answer: "a", engine: "echo")
        try await session.begin(question: "pending")
        let id = await session.id

        #expect(try await repository.delete(id))
        #expect(try await repository.read(id) == nil)
        #expect(try await repository.draft(for: id) == nil)
        #expect(try await !repository.delete(id))
    }

    @Test("search finds every message containing the text, ignoring case", arguments: StoreKind.allCases)
    func searchFindsMessages(kind: StoreKind) async throws {
        let clock = SteppingClock()
        // The fixture owns the test's directory: it must live as long as the store.
        let fixture = try kind.fixture()
        let repository = ChatRepository(storage: try fixture.open(), now: clock.now)
        let first = try await ChatSession.start(repository: repository, now: clock.now)
        await first.record(question: "Tell me about Swift", answer: "swift is a language", engine: "echo")
        let second = try await ChatSession.start(repository: repository, now: clock.now)
        await second.record(question: "And Café?", answer: "no idea", engine: "echo")

        let matches = try await repository.search("SWIFT")
        #expect(matches.map(\.chatId) == [await first.id, await first.id])
        #expect(matches.map(\.index) == [0, 1])
        #expect(try await repository.search("cafe").map(\.chatId) == [await second.id])
        #expect(try await repository.search("nothing like this").isEmpty)
        await #expect(throws: ChatError.emptySearch) { try await repository.search("  ") }
    }

    /// A version-1 chat with one message of `role` at `time`, stored as `id`.
    private static func chatText(id: String, role: String, time: String) throws -> String {
        let object: [String: Any] = [
            "version": 1, "id": id, "title": "t", "created": "2025-06-15T15:06:40.000Z",
            "updated": "2025-06-15T15:06:40.000Z", "messages": [["role": role, "text": "x", "time": time]],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}
