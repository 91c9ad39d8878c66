import Foundation
import KeepConformance
import Testing

@testable import KeepConversation

/// Files and images joined to a question, refused before anything is sent.
@Suite("Files joined to a question")
struct QuestionFilesTests {
    private func file(_ directory: TemporaryDirectory, _ name: String, _ data: Data) -> String {
        let path = directory.appending(name)
        FileManager.default.createFile(atPath: path, contents: data)
        return path
    }

    @Test("a text file is joined after the question between lines naming it")
    func joined() throws {
        let directory = try TemporaryDirectory()
        let path = file(directory, "a.txt", Data("one".utf8))
        #expect(try QuestionFiles.joined(question: "q", paths: [path]) == "q\n\n<file name=\"\(path)\">\none\n</file>")
    }

    @Test("a directory, a FIFO, a binary file and too much text are refused, each naming the file")
    func refused() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let binary = file(directory, "b.bin", Data([0, 1, 2]))
        let big = file(directory, "big.txt", Data(repeating: 0x61, count: QuestionFiles.textLimit + 1))
        for (path, reason) in [
            (directory.path, "directory"), (fifo, "FIFO"), (binary, "not a text file"), (big, "MiB in all"),
        ] {
            #expect(throws: QuestionFiles.Refusal.self) { try QuestionFiles.joined(question: "q", paths: [path]) }
            do {
                _ = try QuestionFiles.joined(question: "q", paths: [path])
            } catch {
                #expect(error.description.contains(reason), "\(error)")
                #expect(error.description.contains(path))
            }
        }
    }

    @Test(
        "an image is typed by its first bytes, never its name",
        arguments: [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] as [UInt8], "image/png"),
            ([0xFF, 0xD8, 0xFF, 0xE0], "image/jpeg"), (Array("GIF89a".utf8), "image/gif"),
            (Array("RIFF\0\0\0\0WEBPVP8 ".utf8), "image/webp"),
        ])
    func imageTypes(bytes: [UInt8], type: String) throws {
        let directory = try TemporaryDirectory()
        let path = file(directory, "picture.txt", Data(bytes))
        #expect(try QuestionFiles.images([path]).first?.mediaType == type)
        let text = file(directory, "fake.png", Data("hello".utf8))
        #expect(throws: QuestionFiles.Refusal.self) { try QuestionFiles.images([text]) }
    }
}
