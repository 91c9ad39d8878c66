import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepFileStoreTesting
import KeepPorts
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a turn costs the disk, and what it leaves when the disk fails or the power goes: a
/// turn in a chat of format 3 is one append, whatever the chat's length.
@Suite("A turn costs the turn")
struct TurnCostTests {
    static let question = String(repeating: "what about this? ", count: 30)
    static let answer = String(repeating: "this is the answer. ", count: 60)

    /// A chat of `turns` turns of the same sizes as the turn under test, stored in format 3.
    static func chat(id: String, turns: Int) -> Chat {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        var chat = Chat(id: id, title: "a long chat", created: start)
        for turn in 0..<turns {
            let time = start.addingTimeInterval(Double(turn))
            chat.messages += [
                ChatMessage(role: .user, text: question, time: time),
                ChatMessage(role: .assistant, text: answer, time: time),
            ]
        }
        chat.updated = start.addingTimeInterval(Double(turns))
        return chat
    }

    /// What one turn (the answer recorded and the draft cleared) did to the disk.
    struct Cost: CustomStringConvertible {
        var written = 0
        var read = 0
        var calls = 0
        var description: String { "\(written) bytes written, \(read) read back, \(calls) calls" }
    }

    static func costOfATurn(in turns: Int) async throws -> Cost {
        let directory = try TemporaryDirectory()
        let recorder = RecordingFileSystem()
        let repository = ChatRepository(storage: try FileStore(root: directory.path, calls: recorder))
        try await repository.save(chat(id: "long", turns: turns))
        let session = try #require(try await ChatSession.open("long", repository: repository))
        try await session.begin(question: question)
        recorder.reset()
        _ = try await session.recordTurn(question: question, answer: answer, engine: "echo")
        var cost = Cost(calls: recorder.calls.count)
        for call in recorder.calls {
            switch call {
            case .write(_, let count): cost.written += count
            case .read(_, let count, _): cost.read += count
            case .readFile: cost.read += .max / 4  // a whole file read: never part of a turn
            default: break
            }
        }
        let stored = try #require(try await repository.read("long"))
        let inMemory = await session.chat
        #expect(stored.messages.count == 2 * turns + 2 && stored == inMemory)
        return cost
    }

    @Test("a turn's bytes written and read and its calls do not grow with the chat: at 2,000 turns within 2× of 1")
    func aTurnCostsTheTurn() async throws {
        let one = try await Self.costOfATurn(in: 1)
        let many = try await Self.costOfATurn(in: 2_000)
        print("turn cost · in a chat of 1 turn: \(one); of 2,000 turns: \(many)")
        #expect(one.written > Self.answer.utf8.count, "the turn wrote less than its answer: \(one)")
        #expect(many.written <= 2 * one.written, "\(many) against \(one)")
        // Reading back: the end of the file, to find where its last line starts; bounded.
        #expect(many.read <= 32 << 10, "\(many) against \(one)")
        #expect(many.calls <= 2 * one.calls, "\(many) against \(one)")
    }

    // MARK: - Faults

    /// How a turn is recorded in each scenario: appended, a new chat written whole, an older
    /// chat converted.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case append, newChat, conversion
        var testDescription: String { rawValue }
    }

    /// Puts the scenario's chat (none for a new chat) and the turn's draft in the store in
    /// `directory`; answers the chat as stored.
    static func prepare(_ kind: Kind, in directory: String) async throws -> Chat? {
        let plain = ChatRepository(storage: try FileStore(root: directory))
        switch kind {
        case .append: try await plain.save(chat(id: "c", turns: 3))
        case .conversion:
            try await FileStore(root: directory).write(
                StorageKey(.chats, "c"), try plain.exportText(chat(id: "c", turns: 3)))
        case .newChat: break
        }
        try await plain.saveDraft(question, for: "c")
        return try await plain.read("c")
    }

    /// The session a turn is recorded in, its store reaching the disk through `calls`.
    static func session(in directory: String, calls: any FileSystemCalls) async throws -> ChatSession {
        let repository = ChatRepository(storage: try FileStore(root: directory, calls: calls))
        return try await ChatSession.open("c", repository: repository)
            ?? ChatSession(
                chat: Chat(id: "c", created: Date(timeIntervalSince1970: 1_750_000_000)), repository: repository)
    }

    @Test(
        "a failed call anywhere in a turn is a typed error that leaves the chat as it was, or the turn was recorded",
        arguments: Kind.allCases)
    func aFaultAnywhereInATurn(_ kind: Kind) async throws {
        // The calls a turn makes when nothing fails.
        let traced = try TemporaryDirectory()
        _ = try await Self.prepare(kind, in: traced.path)
        let tracer = RecordingFileSystem()
        let tracedSession = try await Self.session(in: traced.path, calls: tracer)
        tracer.reset()
        _ = try await tracedSession.recordTurn(question: Self.question, answer: Self.answer, engine: "echo")
        let calls = tracer.calls.count
        #expect(calls >= 5, "a turn made \(calls) calls")

        var failed = 0
        for index in 0..<calls {
            for errno in [EIO, ENOSPC, EACCES] {
                let directory = try TemporaryDirectory()
                let before = try await Self.prepare(kind, in: directory.path)
                let counter = Counted()
                let recorder = RecordingFileSystem { _ in counter.next() == index ? .fail(errno) : nil }
                let session = try await Self.session(in: directory.path, calls: recorder)
                let inMemory = await session.chat
                counter.arm()
                let context = "\(kind), call \(index) failing with errno \(errno)"
                var error: ChatError?
                do {
                    _ = try await session.recordTurn(question: Self.question, answer: Self.answer, engine: "echo")
                } catch let thrown {
                    error = thrown
                }
                let reader = ChatRepository(storage: try FileStore(root: directory.path))
                let stored = try await reader.read("c")
                let recorded = stored?.messages.count == (before?.messages.count ?? 0) + 2
                if let error {
                    failed += 1
                    guard error.code == .storage, let storageError = error.storage else {
                        Issue.record("\(context): \(error)")
                        continue
                    }
                    #expect(storageError.errno == errno, "\(context): \(storageError)")
                    // Nothing acknowledged: the chat as it was (or, when a whole write failed
                    // at its directory's flush after the rename, the chat with the turn, whole).
                    #expect(stored == before || recorded, "\(context): the chat reads \(String(describing: stored))")
                    #expect(await session.chat == inMemory, "\(context): the session's chat changed")
                    #expect(try await reader.draft(for: "c") == Self.question, "\(context): the draft was lost")
                } else {
                    // Only clearing the draft, or releasing a lock, may fail without failing the turn.
                    #expect(recorded, "\(context): the turn succeeded, and is not in the chat")
                }
            }
        }
        print("faults · a turn (\(kind)): \(calls) calls, each failed three ways; \(failed) failed the turn")
        #expect(failed > 0)
    }

    // MARK: - A power cut

    @Test("every state a power cut can leave a turn's append in reads as the chat before the turn or after it")
    func aPowerCutDuringATurnsAppend() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        // A chat of many records, then a turn whose line holds characters of several bytes.
        var chat = Chat(id: "c", title: "many records", created: Date(timeIntervalSince1970: 1_750_000_000))
        for turn in 0..<30 {
            chat.messages.append(
                ChatMessage(role: turn % 2 == 0 ? .user : .assistant, text: "record \(turn)", time: chat.created))
        }
        try await repository.save(chat)
        let session = try #require(try await ChatSession.open("c", repository: repository))
        let before = await session.chat
        let file = directory.appending("store/chats/c")
        let old = try #require(FileManager.default.contents(atPath: file))
        _ = try await session.recordTurn(question: "ünï 🙂", answer: "答案 🙂", engine: "echo")
        let after = await session.chat
        let new = Array(try #require(FileManager.default.contents(atPath: file)))
        // What the medium can hold after a cut, as the file store's simulated disk has it: any
        // size the file had since its last flush, each 16-byte sector of the line new, or zeros.
        let sector = 16
        let added = new.count - old.count
        let sectors = (added + (old.count % sector) + sector - 1) / sector
        var states = 0
        var seen = Set<Int>()
        for size in [old.count, new.count] {
            for landed in 0..<(1 << sectors) {
                var bytes = Array(old)
                for offset in old.count..<size {
                    let index = (offset - (old.count - old.count % sector)) / sector
                    bytes.append(landed & (1 << index) != 0 ? new[offset] : 0)
                }
                try Data(bytes).write(to: URL(fileURLWithPath: file))
                states += 1
                let read = try await ChatRepository(storage: try FileStore(root: directory.path)).read("c")
                #expect(read == before || read == after, "state \(size) \(landed): \(String(describing: read))")
                seen.insert(read == after ? 1 : 0)
            }
        }
        print("power cut · a turn in a chat of 30 records: \(states) states, each the chat before or after the turn")
        #expect(seen == [0, 1], "the states did not reach both the old and the new chat")
    }
}

/// A count of the calls a fault plan sees once armed, shared across threads.
private final class Counted: Sendable {
    private let count = Mutex<Int?>(nil)

    /// This call's number since ``arm()``, from 0; -1 before.
    func next() -> Int {
        count.withLock { value in
            guard let current = value else { return -1 }
            value = current + 1
            return current
        }
    }

    /// Starts counting.
    func arm() { count.withLock { $0 = 0 } }
}
