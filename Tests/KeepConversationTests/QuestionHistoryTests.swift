import Foundation
import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

@testable import KeepConversation

/// The lines typed at the chat's prompt, kept in the store.
@Suite("The question history")
struct QuestionHistoryTests {
    private func history(
        _ directory: TemporaryDirectory, capacity: Int = QuestionHistory.capacity
    ) throws
        -> (QuestionHistory, FileStore)
    {
        let store = try FileStore(root: directory.path)
        return (QuestionHistory(storage: store, root: directory.path, capacity: capacity), store)
    }

    @Test("lines are kept oldest first, a repeat of the newest once, one appended line each, private to the user")
    func keepsLines() async throws {
        let directory = try TemporaryDirectory()
        let (history, store) = try history(directory)
        #expect(try await history.load() == [], "nothing typed yet is an empty history")
        try await history.append("first")
        try await history.append("second\nof two lines")
        let before = try #require(try await store.read(QuestionHistory.key))
        try await history.append("second\nof two lines")
        let after = try #require(try await store.read(QuestionHistory.key))
        #expect(after.hasPrefix(before) && after.split(separator: "\n").count == 3, "an append of the line")
        #expect(try await self.history(directory).0.load() == ["first", "second\nof two lines"])
        let path = directory.appending("store/history/questions")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
    }

    @Test("the history is capped: past the capacity the oldest lines go, and the value is rewritten past twice it")
    func capped() async throws {
        let directory = try TemporaryDirectory()
        let (history, store) = try history(directory, capacity: 3)
        for number in 1...7 { try await history.append("line \(number)") }
        #expect(try await history.load() == ["line 5", "line 6", "line 7"])
        #expect(try await store.read(QuestionHistory.key)?.split(separator: "\n").count == 3, "rewritten")
    }

    @Test("two chats' lines merge in the order they were typed")
    func merged() async throws {
        let directory = try TemporaryDirectory()
        let (one, _) = try history(directory)
        let (two, _) = try history(directory)
        try await one.append("from one")
        try await two.append("from two")
        try await one.append("one again")
        #expect(try await two.load() == ["from one", "from two", "one again"])
    }

    @Test("the old history file is read once, moved into the store before the store's lines, and removed")
    func movesTheOldFile() async throws {
        let directory = try TemporaryDirectory()
        let (history, _) = try history(directory)
        try await history.append("typed since")
        try Data(#"["typed long ago", "and then"]"#.utf8).write(to: URL(fileURLWithPath: history.legacyPath))
        #expect(try await history.load() == ["typed long ago", "and then", "typed since"])
        #expect(!FileManager.default.fileExists(atPath: history.legacyPath), "the old file is gone")
        #expect(try await history.load() == ["typed long ago", "and then", "typed since"], "moved, not lost")
    }

    @Test("a history that is not lines typed is an error, and is never written over")
    func damaged() async throws {
        let directory = try TemporaryDirectory()
        let (history, store) = try history(directory)
        try await store.write(QuestionHistory.key, "not json\n")
        await #expect(throws: QuestionHistory.Failure.self) { try await history.load() }
        #expect(try await store.read(QuestionHistory.key) == "not json\n")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: history.legacyPath))
        await #expect(throws: QuestionHistory.Failure.self) { try await history.load() }
        #expect(try String(contentsOfFile: history.legacyPath, encoding: .utf8) == "not json")
    }

    @Test("removing the history removes it and any old file; removing none is not an error")
    func remove() async throws {
        let directory = try TemporaryDirectory()
        let (history, store) = try history(directory)
        try await history.append("gone soon")
        try Data(#"["old"]"#.utf8).write(to: URL(fileURLWithPath: history.legacyPath))
        try await history.remove()
        #expect(try await store.read(QuestionHistory.key) == nil)
        #expect(!FileManager.default.fileExists(atPath: history.legacyPath))
        try await history.remove()
    }
}
