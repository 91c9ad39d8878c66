import Foundation
import KeepApp
import KeepChatIndex
import KeepConversation
import KeepCore
import KeepEngines
import KeepFileStore
import KeepPorts
import KeepSealed

/// One turn of `keep ask` in a chat that already holds 1, 100, 1,000 and 2,000 turns (each a
/// 200-byte question and a 2 KiB answer), plain and sealed (``/KeepSealed/SealedStorage``
/// over the file store, under a key of the bench's own): the whole turn (TurnRunner: the
/// draft, the answer, the turn appended, the draft cleared, the chat index told), and the
/// part of it that holds the store's lock (`TurnRunner.record`: the turn appended, the index
/// told), against a raw append of the turn's bytes with one flush. All the chat lengths are
/// in one comparison, so each is a ratio to the turn at 1 turn; sealed and plain sit side by
/// side in one comparison per length. Measured once: the bytes one turn hands the store
/// (a counting store over the file store; the index's own writes are not counted).
struct TurnScenario: Scenario {
    let id = ScenarioID.turn

    static let raw = "raw: append the turn's bytes to a file, one flush"
    static let plainTurn = "plain: keep turn (TurnRunner, echo engine)"
    static let sealedTurn = "sealed: keep turn (TurnRunner, echo engine)"
    static let plainLocked = "plain: the turn under the store lock (TurnRunner.record: append, index)"
    static let sealedLocked = "sealed: the turn under the store lock (TurnRunner.record: append, index)"
    static let lockTitle = "a turn under the store lock, by the chat's length (plain)"
    static let plainRead = "plain: the chat's value read from the store"
    static let sealedRead = "sealed: the chat's value read from the store and opened"
    static let plainChat = "plain: the chat read (ChatRepository.read: the value, then decoded)"
    static let sealedChat = "sealed: the chat read (ChatRepository.read: the value opened, then decoded)"

    static func title(_ turns: Int) -> String {
        "a turn in a chat of \(Format.count(turns)) turns, sealed against plain"
    }
    static func written(_ turns: Int, sealed: Bool = false) -> String {
        "bytes a turn writes, chat of \(Format.count(turns)) turns\(sealed ? ", sealed" : "")"
    }
    static func locked(_ turns: Int) -> String { "under the lock, chat of \(Format.count(turns)) turns" }

    /// One chat of `turns` turns in a store of its own, and the runner that adds to it.
    private struct Setup: Sendable {
        let id: String
        let runner: TurnRunner
        /// The chat, read once: what a turn's session holds when the engine has answered.
        let session: ChatSession
        let counting: CountingStorage
        /// The store the chat is read through (sealing, or the counting store itself).
        let storage: any StampedStorage
    }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        var comparisons: [Comparison] = []
        var facts: [Fact] = []
        var lockRows: [Contender] = []
        let question = Payload.text(200, seed: -1)
        let answer = Payload.text(2048, seed: -2)
        let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }
        for turns in scale.turnCounts {
            let plain = try await Self.setup(turns, in: directory + "/plain-\(turns)", sealedWith: nil)
            let sealed = try await Self.setup(turns, in: directory + "/sealed-\(turns)", sealedWith: key)
            for (setup, isSealed) in [(plain, false), (sealed, true)] {
                let before = setup.counting.bytes
                let session = try await setup.runner.begin(question, in: setup.id)
                _ = try await setup.runner.answer(question, in: session) { _ in }
                facts.append(
                    Fact(
                        name: Self.written(turns, sealed: isSealed),
                        value: Double(setup.counting.bytes - before) / 1024, unit: "KiB"))
            }
            let rawDirectory = directory + "/raw-\(turns)"
            try RawFile.makeDirectories(rawDirectory)
            let rawPath = rawDirectory + "/chat"
            try RawFile.create(rawPath, [])
            let line = Array((question + answer).utf8) + [0x0A]
            lockRows.append(
                Contender(Self.locked(turns), note: "plain", count: turns) {
                    _ = try await plain.runner.record(question, reply: EngineReply(text: answer), in: plain.session)
                })
            comparisons.append(
                Comparison(
                    title: Self.title(turns), metric: .latency, operation: "turn", baseline: Self.plainTurn,
                    contenders: [
                        Contender(Self.raw, count: turns) { try RawFile.appendAndFlush(rawPath, line) },
                        Contender(Self.plainTurn, note: "the chat grows a turn per sample", count: turns) {
                            let session = try await plain.runner.begin(question, in: plain.id)
                            _ = try await plain.runner.answer(question, in: session) { _ in }
                        },
                        Contender(Self.sealedTurn, note: "the chat grows a turn per sample", count: turns) {
                            let session = try await sealed.runner.begin(question, in: sealed.id)
                            _ = try await sealed.runner.answer(question, in: session) { _ in }
                        },
                        Contender(Self.plainRead, count: turns) {
                            _ = try await plain.storage.read(StorageKey(.chats, plain.id))
                        },
                        Contender(Self.sealedRead, count: turns) {
                            _ = try await sealed.storage.read(StorageKey(.chats, sealed.id))
                        },
                        Contender(Self.plainChat, count: turns) {
                            _ = try await ChatRepository(storage: plain.storage).read(plain.id)
                        },
                        Contender(Self.sealedChat, count: turns) {
                            _ = try await ChatRepository(storage: sealed.storage).read(sealed.id)
                        },
                        Contender(Self.plainLocked, count: turns) {
                            _ = try await plain.runner.record(
                                question, reply: EngineReply(text: answer), in: plain.session)
                        },
                        Contender(Self.sealedLocked, count: turns) {
                            _ = try await sealed.runner.record(
                                question, reply: EngineReply(text: answer), in: sealed.session)
                        },
                    ]))
        }
        if let first = scale.turnCounts.first {
            comparisons.append(
                Comparison(
                    title: Self.lockTitle, metric: .latency, operation: "turn", baseline: Self.locked(first),
                    contenders: lockRows))
        }
        return .ready(comparisons, facts: facts)
    }

    private static func setup(_ turns: Int, in root: String, sealedWith key: [UInt8]?) async throws -> Setup {
        let counting = CountingStorage(try FileStore(root: root))
        let storage: any StampedStorage =
            try key.map { try SealedStorage(counting, dataKey: $0, sealing: [.chats]) } ?? counting
        let repository = ChatRepository(storage: storage)
        let id = Payload.id("t", turns)
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let messages = (0..<turns * 2).map { index in
            ChatMessage(
                role: index % 2 == 0 ? .user : .assistant,
                text: Payload.text(index % 2 == 0 ? 200 : 2048, seed: index), time: start)
        }
        try await repository.save(
            Chat(id: id, title: "a long chat", messages: messages, created: start, engine: "echo"))
        let index = ChatIndex(root: root, storage: storage)
        _ = try await index.listing()
        let runner = TurnRunner(storage: storage, lock: StoreLock(root: root), engine: EchoEngine(), indexRoot: root)
        guard let session = try await ChatSession.open(id, repository: repository) else {
            throw BenchError(.setup, "turn", "the chat \(id) is gone")
        }
        return Setup(id: id, runner: runner, session: session, counting: counting, storage: storage)
    }
}
