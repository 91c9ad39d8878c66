import Foundation
import KeepApp
import KeepChatIndex
import KeepCore
import KeepEngines
import KeepFileStore
import KeepPorts

/// One turn of `keep ask` in a chat that already holds 1, 100, 1,000 and 2,000 turns (each
/// a 200-byte question and a 2 KiB answer): the whole write path of a turn (the draft, the
/// chat rewritten whole, the draft cleared, the chat index updated), against a
/// raw durable write (two flushes) of as many bytes as the chat file holds. What the turn
/// writes is measured once: the chat file's size, which is rewritten whole every turn.
struct TurnScenario: Scenario {
    let id = ScenarioID.turn

    static let raw = "raw: write the chat's bytes durably (two flushes)"
    static let turn = "keep turn (TurnRunner, echo engine)"

    static func title(_ turns: Int) -> String { "a turn in a chat of \(Format.count(turns)) turns" }
    static func written(_ turns: Int) -> String { "bytes a turn writes, chat of \(Format.count(turns)) turns" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        var comparisons: [Comparison] = []
        var facts: [Fact] = []
        for turns in scale.turnCounts {
            let root = directory + "/\(turns)"
            let store = try FileStore(root: root)
            let repository = ChatRepository(storage: store)
            let id = Payload.id("t", turns)
            let start = Date(timeIntervalSince1970: 1_750_000_000)
            let messages = (0..<turns * 2).map { index in
                ChatMessage(
                    role: index % 2 == 0 ? .user : .assistant,
                    text: Payload.text(index % 2 == 0 ? 200 : 2048, seed: index), time: start)
            }
            try await repository.save(
                Chat(id: id, title: "a long chat", messages: messages, created: start, engine: "echo"))
            _ = try await ChatIndex(root: root, storage: store).listing()
            let runner = TurnRunner(
                storage: store, lock: StoreLock(root: root), engine: EchoEngine(), indexRoot: root)
            let question = Payload.text(200, seed: -1)
            let chatFile = root + "/store/chats/" + id
            let bytes = try RawFile.read(chatFile)
            facts.append(Fact(name: Self.written(turns), value: Double(bytes.count) / 1024, unit: "KiB"))
            let rawDirectory = directory + "/raw-\(turns)"
            try RawFile.makeDirectories(rawDirectory)
            comparisons.append(
                Comparison(
                    title: Self.title(turns), metric: .latency, operation: "turn", baseline: Self.raw,
                    contenders: [
                        Contender(Self.raw, count: turns) {
                            try RawFile.replaceWithTwoFlushes(in: rawDirectory, name: "chat", bytes)
                        },
                        Contender(Self.turn, note: "the chat grows a turn per sample", count: turns) {
                            let session = try await runner.begin(question, in: id)
                            _ = try await runner.answer(question, in: session) { _ in }
                        },
                    ]))
        }
        return .ready(comparisons, facts: facts)
    }
}
