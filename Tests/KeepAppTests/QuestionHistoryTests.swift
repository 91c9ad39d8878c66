import Foundation
import KeepConformance
import Testing

@testable import KeepApp

/// The file of lines typed at the chat's prompt.
@Suite("The question history file")
struct QuestionHistoryTests {
    @Test("lines are kept oldest first, a repeat of the newest once, in a file only the user can read")
    func keepsLines() throws {
        let directory = try TemporaryDirectory()
        let history = QuestionHistory(root: directory.path)
        #expect(try history.load() == [], "no file yet is an empty history")
        try history.append("first")
        try history.append("second\nof two lines")
        try history.append("second\nof two lines")
        #expect(try QuestionHistory(root: directory.path).load() == ["first", "second\nof two lines"])
        let attributes = try FileManager.default.attributesOfItem(atPath: history.path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == [QuestionHistory.fileName], "no temp file is left behind")
    }

    @Test("the history is capped: past the capacity the oldest lines go")
    func capped() throws {
        let directory = try TemporaryDirectory()
        let history = QuestionHistory(root: directory.path, capacity: 3)
        for number in 1...5 { try history.append("line \(number)") }
        #expect(try history.load() == ["line 3", "line 4", "line 5"])
    }

    @Test("a file that is not a history is an error naming it, and is never written over")
    func damagedFile() throws {
        let directory = try TemporaryDirectory()
        let history = QuestionHistory(root: directory.path)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: history.path))
        #expect(throws: QuestionHistory.Failure.self) { try history.load() }
        #expect(throws: QuestionHistory.Failure.self) { try history.append("new") }
        #expect(try String(contentsOfFile: history.path, encoding: .utf8) == "not json")
    }

    @Test("removing the history removes the file; removing none is not an error")
    func remove() throws {
        let directory = try TemporaryDirectory()
        let history = QuestionHistory(root: directory.path)
        try history.append("gone soon")
        #expect(FileManager.default.fileExists(atPath: history.path))
        try history.remove()
        #expect(!FileManager.default.fileExists(atPath: history.path))
        try history.remove()
    }
}
