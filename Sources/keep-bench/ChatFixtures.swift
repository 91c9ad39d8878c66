import Foundation
import KeepCore
import KeepPorts

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
