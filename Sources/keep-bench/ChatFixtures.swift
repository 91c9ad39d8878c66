import Foundation
import KeepCore
import KeepPorts
import KeepSealed

/// Chats for the scenarios that list them: real ones, in ``KeepCore/ChatRepository``'s own
/// format, laid down raw where a file store (or `keep`) will find them.
enum ChatFixtures {
    /// `count` chats of two turns each (about 2 KiB), as ChatRepository writes them, by id.
    static func make(_ count: Int) async throws -> [(id: String, bytes: [UInt8])] {
        let memory = MemoryStorage()
        let repository = ChatRepository(storage: memory)
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        var chats: [(id: String, bytes: [UInt8])] = []
        for index in 0..<count {
            let id = Payload.id("c", index)
            let time = start.addingTimeInterval(Double(index) * 60)
            let messages = (0..<4).map { turn in
                ChatMessage(
                    role: turn % 2 == 0 ? .user : .assistant,
                    text: Payload.text(turn % 2 == 0 ? 200 : 700, seed: index * 4 + turn),
                    time: time.addingTimeInterval(Double(turn)))
            }
            try await repository.save(
                Chat(id: id, title: "chat \(index)", messages: messages, created: time, engine: "echo"))
            guard let text = try await memory.read(StorageKey(.chats, id)) else {
                throw BenchError(.setup, "chat fixtures", "the chat \(id) just saved reads as absent")
            }
            chats.append((id, Array(text.utf8)))
        }
        return chats
    }

    /// Writes `chats` as a file store under `root` keeps them (no flush per file), dated an
    /// hour back as a history is (so the chat index trusts their stamps at once), and
    /// answers the namespace's directory.
    static func layDown(_ chats: [(id: String, bytes: [UInt8])], under root: String) throws(StorageError) -> String {
        let namespace = root + "/store/chats"
        try RawFile.makeDirectories(namespace)
        let hourAgo = timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)
        for chat in chats {
            let path = namespace + "/" + chat.id
            try RawFile.create(path, chat.bytes)
            var times = [hourAgo, hourAgo]
            guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
                throw .system("utimensat", path: path, errno: errno)
            }
        }
        return namespace
    }
}

// MARK: - Realistic chats

extension ChatFixtures {
    /// Which chats a history scenario lays down.
    enum Kind: String, Sendable {
        /// 5 to 20 turns of 200 to 2,000 bytes each way (``RealisticText``), about 19.5 KB a chat.
        case realistic
        /// Two turns of a 200-byte question and a 700-byte answer, about 2 KB a chat.
        case small
    }

    /// What ``layDown(_:_:under:sealedWith:)`` wrote.
    struct Laid: Sendable {
        /// The chats' directory.
        let namespace: String
        let count: Int
        /// The bytes of every chat file together.
        let bytes: Int

        /// Bytes per chat.
        var average: Double { count == 0 ? 0 : Double(bytes) / Double(count) }
    }

    /// The chat `index` of `kind` and its turns, as keep would have recorded them.
    static func chat(_ index: Int, _ kind: Kind) -> (chat: Chat, turns: [ChatTurn]) {
        let start = Date(timeIntervalSince1970: 1_750_000_000).addingTimeInterval(Double(index) * 60)
        var turns: [ChatTurn] = []
        switch kind {
        case .small:
            for turn in 0..<2 {
                turns.append(
                    ChatTurn(
                        question: Payload.text(200, seed: index * 4 + turn * 2),
                        answer: Payload.text(700, seed: index * 4 + turn * 2 + 1),
                        time: start.addingTimeInterval(Double(turn)), engine: "echo"))
            }
        case .realistic:
            var text = RealisticText(seed: index)
            for turn in 0..<text.number(in: 5...20) {
                let question = text.question(text.questionSize())
                let answer = text.answer(text.answerSize())
                turns.append(
                    ChatTurn(
                        question: question, answer: answer, time: start.addingTimeInterval(Double(turn) * 30),
                        engine: "remote", model: "bench-model-1"))
            }
        }
        let title = turns.first.map { String($0.question.prefix(40)) } ?? ""
        return (Chat(id: Payload.id("c", index), title: title, created: start, engine: "echo"), turns)
    }

    /// Writes `count` chats of `kind` as keep records them (each turn through
    /// ``/KeepCore/ChatRepository/record(_:in:)``, over a ``/KeepPorts/MemoryStorage``, sealed
    /// under `key` when given, as ``/KeepSealed/SealedStorage`` seals them) into the file store
    /// under `root`, one chat in memory at a time, dated an hour back as ``layDown(_:under:)``
    /// dates them.
    static func layDown(
        _ count: Int, _ kind: Kind, under root: String, sealedWith key: [UInt8]? = nil
    ) async throws -> Laid {
        let namespace = root + "/store/chats"
        try RawFile.makeDirectories(namespace)
        let hourAgo = timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)
        var total = 0
        for index in 0..<count {
            let memory = MemoryStorage()
            let storage: any StoragePort =
                try key.map { try SealedStorage(memory, dataKey: $0, sealing: [.chats]) } ?? memory
            let repository = ChatRepository(storage: storage)
            let (chat, turns) = Self.chat(index, kind)
            var stored = StoredChat(new: chat)
            for turn in turns { stored = try await repository.record(turn, in: stored) }
            guard let text = try await memory.read(StorageKey(.chats, chat.id)) else {
                throw BenchError(.setup, "chat fixtures", "the chat \(chat.id) just recorded reads as absent")
            }
            let path = namespace + "/" + chat.id
            let bytes = Array(text.utf8)
            try RawFile.create(path, bytes)
            total += bytes.count
            var times = [hourAgo, hourAgo]
            guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
                throw StorageError.system("utimensat", path: path, errno: errno)
            }
        }
        return Laid(namespace: namespace, count: count, bytes: total)
    }
}

// MARK: - By hand

extension ChatFixtures {
    /// The first argument that makes `keep-bench` lay down a history and exit:
    /// `keep-bench --lay-down KIND COUNT DATA_HOME` writes COUNT chats of KIND (`realistic`,
    /// `small`) where `keep` with `XDG_DATA_HOME=DATA_HOME` finds them, for profiling by hand.
    static let layDownFlag = "--lay-down"

    /// The work of ``layDownFlag``: answers the exit status (2 for arguments it cannot use).
    static func layDown(arguments: [String]) async -> Int32 {
        guard arguments.count == 3, let kind = Kind(rawValue: arguments[0]), let count = Int(arguments[1]), count > 0
        else {
            printError("usage: keep-bench \(layDownFlag) realistic|small COUNT DATA_HOME")
            return 2
        }
        do {
            let laid = try await layDown(count, kind, under: arguments[2] + "/keep")
            printError("keep-bench: \(laid.count) chats, \(laid.bytes) bytes, \(Int(laid.average)) on average")
            return 0
        } catch {
            printError("keep-bench: \(error)")
            return 1
        }
    }
}
