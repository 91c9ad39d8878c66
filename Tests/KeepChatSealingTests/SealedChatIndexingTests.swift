import Foundation
import KeepChatIndex
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite
import KeepSealed
import KeepTestSupport
import Testing

@testable import KeepChatSealing

/// The chat index of sealed chats, on the chats' own key: it holds no title and no word of
/// a chat, finds what a scan finds, and an index made under another key is rebuilt.
@Suite("The sealed chat index")
struct SealedChatIndexingTests {
    private static let word = "quixplendorous"

    /// A data root with three chats, one titled and talking of ``word``, sealed under `key`
    /// (or plain without one), its chats' files dated an hour back.
    private func root(sealedUnder key: [UInt8]?) async throws -> (TemporaryDirectory, any StampedStorage) {
        let directory = try TemporaryDirectory()
        let files = try FileStore(root: directory.path)
        let storage: any StampedStorage =
            try key.map { try SealedStorage(files, dataKey: $0, sealing: [.chats, .drafts]) } ?? files
        let repository = ChatRepository(storage: storage)
        for number in 1...3 {
            let time = Date(timeIntervalSince1970: 1_750_000_000 + Double(number) * 60)
            let text = number == 2 ? "what is \(Self.word)?" : "question \(number)"
            try await repository.save(
                Chat(
                    id: String(format: "20250614-%04d", number),
                    title: number == 2 ? "about \(Self.word)" : "chat \(number)",
                    messages: [
                        ChatMessage(role: .user, text: text, time: time),
                        ChatMessage(role: .assistant, text: "an answer", time: time),
                    ], created: time, updated: time))
        }
        let chats = directory.appending("store/chats")
        var times = [timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)]
        for name in try FileManager.default.contentsOfDirectory(atPath: chats) {
            #expect(utimensat(AT_FDCWD, chats + "/" + name, &times, 0) == 0)
        }
        return (directory, storage)
    }

    /// Whether the index file or its WAL under `directory` holds `text`.
    private func indexHolds(_ text: String, in directory: TemporaryDirectory) -> Bool {
        let path = directory.appending(ChatIndex.fileName)
        return [path, path + "-wal"].contains { file in
            (FileManager.default.contents(atPath: file) ?? Data()).range(of: Data(text.utf8)) != nil
        }
    }

    @Test("a sealed index holds no title or word of a chat, in its file or its WAL, and finds what a scan finds")
    func holdsNoPlaintext() async throws {
        // The scan sees the positive: a plain index holds the title.
        let (plainRoot, plainStorage) = try await root(sealedUnder: nil)
        let plain = ChatIndex(root: plainRoot.path, storage: plainStorage)
        _ = try await plain.search(Self.word)
        #expect(indexHolds("about \(Self.word)", in: plainRoot), "the scan finds a plain title")

        let key = try AESGCMSealing().makeKey()
        let (directory, storage) = try await root(sealedUnder: key)
        let index = ChatIndex(root: directory.path, storage: storage, sealing: try SealedChatIndexing(dataKey: key))
        let found = try await index.search(Self.word.uppercased())
        #expect(found == (try await ChatRepository(storage: storage).search(Self.word.uppercased())))
        #expect(found.map(\.chatId) == ["20250614-0002"])
        #expect(try await index.listing().chats.map(\.title).contains("about \(Self.word)"))
        for text in [Self.word, "about", "question", "answer", String(Self.word.prefix(6))] {
            #expect(!indexHolds(text, in: directory), "the index holds no \(text)")
        }
    }

    /// The pieces of the vocabulary the index under `directory` holds, as stored.
    private func vocabularyPieces(in directory: TemporaryDirectory) async throws -> [[UInt8]] {
        let database = try SQLiteDatabase(path: directory.appending(ChatIndex.fileName))
        return try await database.read { transaction throws(SQLiteError) in
            var pieces: [[UInt8]] = []
            for row in try transaction.query("SELECT words FROM words ORDER BY first") {
                pieces.append(try row.blob(0))
            }
            return pieces
        }
    }

    @Test(
        "a sealed vocabulary holds no word in the clear, before or after a turn brings a new one, and the turn's word is found"
    )
    func sealedVocabulary() async throws {
        // The check sees the positive: a plain vocabulary holds the words as they are.
        let (plainRoot, plainStorage) = try await root(sealedUnder: nil)
        _ = try await ChatIndex(root: plainRoot.path, storage: plainStorage).search(Self.word)
        let plainPieces = try await vocabularyPieces(in: plainRoot)
        #expect(plainPieces.contains { Data($0).range(of: Data(Self.word.utf8)) != nil })

        let key = try AESGCMSealing().makeKey()
        let (directory, storage) = try await root(sealedUnder: key)
        let index = ChatIndex(root: directory.path, storage: storage, sealing: try SealedChatIndexing(dataKey: key))
        _ = try await index.search(Self.word)
        let repository = ChatRepository(storage: storage)
        guard var chat = try await repository.read("20250614-0001") else {
            Issue.record("chat 1 is stored")
            return
        }
        let before = await index.stamp(of: chat.id)
        let turnWord = "zorblaxification"
        chat.messages += [
            ChatMessage(role: .user, text: "and \(turnWord)?", time: chat.updated),
            ChatMessage(role: .assistant, text: "a second answer", time: chat.updated),
        ]
        try await repository.save(chat)
        await index.recorded(chat, before: before)
        let pieces = try await vocabularyPieces(in: directory)
        #expect(pieces.count >= 2, "the turn's new word made a piece of its own")
        for text in [Self.word, turnWord, "question", "answer", "second"] {
            #expect(!pieces.contains { Data($0).range(of: Data(text.utf8)) != nil }, "no piece holds \(text)")
            #expect(!indexHolds(text, in: directory), "the index holds no \(text)")
        }
        #expect(try await index.search(turnWord.uppercased()) == (try await repository.search(turnWord)))
        #expect(try await index.search(turnWord).map(\.chatId) == ["20250614-0001"])
    }

    @Test("an index made under another key is rebuilt, and then finds what a scan finds")
    func anotherKeyIsRebuilt() async throws {
        let key = try AESGCMSealing().makeKey()
        let (directory, storage) = try await root(sealedUnder: key)
        let other = try AESGCMSealing().makeKey()
        let before = ChatIndex(root: directory.path, storage: storage, sealing: try SealedChatIndexing(dataKey: other))
        _ = try await before.search(Self.word)
        let index = ChatIndex(root: directory.path, storage: storage, sealing: try SealedChatIndexing(dataKey: key))
        #expect(try await index.search(Self.word).map(\.chatId) == ["20250614-0002"])
        #expect(try await index.listing().chats.count == 3)
    }

    @Test("a sealed entry opens only for its binding and its key, and the key check tells two keys apart")
    func sealerBinds() throws {
        let key = try AESGCMSealing().makeKey()
        let sealing = try SealedChatIndexing(dataKey: key)
        let sealed = try sealing.seal(Array("a title".utf8), binding: Array("titles 7".utf8))
        #expect(try sealing.open(sealed, binding: Array("titles 7".utf8)) == Array("a title".utf8))
        #expect(throws: SealingError.self) { try sealing.open(sealed, binding: Array("titles 8".utf8)) }
        let other = try SealedChatIndexing(dataKey: try AESGCMSealing().makeKey())
        #expect(throws: SealingError.self) { try other.open(sealed, binding: Array("titles 7".utf8)) }
        #expect(sealing.keyCheck != other.keyCheck && sealing.isSealed)
    }
}
