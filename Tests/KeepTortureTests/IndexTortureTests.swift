import Foundation
import KeepChatIndex
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import Synchronization
import Testing

@testable import keep_torture

/// `kill -9` at random moments against a process building the chat index a batch at a time,
/// then the index used afresh: nothing the chats say is lost, and the next search goes on
/// from the batches already made rather than starting again.
@Suite("The chat index under kill -9", .serialized)
struct IndexTortureTests {
    static let chatCount = 96

    @Test("a rebuild killed at random points loses nothing, and the next search goes on from where it stopped")
    func killedRebuild() async throws {
        let plan = FuzzPlan(iterations: 60, seed: 0x1d3)
        let tool = try ChildProcess.tortureTool()
        let directory = try TemporaryDirectory()
        let root = directory.path
        let store = try FileStore(root: root)
        let repository = ChatRepository(storage: store)
        for number in 0..<Self.chatCount { try await repository.save(Self.chat(number, holdsWord: number % 3 == 0)) }
        try Self.age(root)
        var random = plan.generator()
        var problems: [String] = []
        var cutShort = 0
        var resumed = 0
        for round in 1...plan.iterations {
            let child = try ChildProcess(
                tool, ["index", root, "0", "\(round)", "\(plan.seed)"], errors: directory.appending("index.log"))
            try child.waitUntilReady()
            // Most kills after a random number of batches, the rest at a random moment.
            if Bool.random(using: &random) || round % 3 == 0 {
                let batches = Int.random(in: 1...(Self.chatCount / 8), using: &random)
                try child.read(until: batches, linesWhere: { $0.hasPrefix("ack ") })
            } else {
                try child.read(until: ChildProcess.now() + UInt64.random(in: 0...60_000_000, using: &random))
            }
            try child.kill()
            // The batches committed in the build the kill cut short: at least the last one
            // it said it had finished.
            let build = child.lines.split(separator: "done", omittingEmptySubsequences: false).last ?? []
            let acknowledged = build.compactMap { line -> Int? in
                let words = line.split(separator: " ")
                return words.first == "ack" && words.count == 3 ? Int(words[1]) : nil
            }.last
            if acknowledged != nil { cutShort += 1 }
            // A chat edited by hand between batches, now and then: the next search sees it
            // (and reads it again, whichever batch it was in).
            let edited = round % 7 == 0
            if edited {
                let number = Int.random(in: 0..<Self.chatCount, using: &random)
                var chat = try #require(try await repository.read(Self.id(number)))
                let holds = chat.messages[1].text.contains(IndexWriter.word)
                chat.messages[1] = ChatMessage(
                    role: .assistant, text: holds ? "no more of it" : "a \(IndexWriter.word) now", time: chat.updated)
                try await repository.save(chat)
                try Self.age(root, only: Self.id(number))
            }
            let reports = Reports()
            var limits = ChatIndex.Limits()
            limits.inlineText = 0
            let index = ChatIndex(
                root: root, storage: store, progress: { reports.add($0, $1) }, limits: limits)
            let found = try await index.search(IndexWriter.word)
            let expected = try await repository.search(IndexWriter.word)
            if found != expected {
                problems.append("round \(round): the index finds \(found.count) messages, a scan \(expected.count)")
            }
            if let acknowledged, let total = reports.first?.total {
                if total > Self.chatCount - acknowledged + (edited ? 1 : 0) {
                    problems.append("round \(round): \(acknowledged) were indexed, yet \(total) were indexed again")
                } else {
                    resumed += 1
                }
            }
            if !problems.isEmpty { break }
        }
        print(
            "torture · chat index rebuild: \(plan.iterations) kills, \(cutShort) in the middle of a build, "
                + "\(resumed) resumed from its batches; \(problems.count) problems (\(plan))")
        #expect(problems.isEmpty, "\(plan): \(problems.prefix(5))")
        #expect(cutShort > 0 && resumed > 0, "kills landed in the middle of a build, and the next search went on")
    }

    static func id(_ number: Int) -> String { "20250601-000000-\(String(format: "%06x", number))" }

    static func chat(_ number: Int, holdsWord: Bool) -> Chat {
        let time = Date(timeIntervalSince1970: 1_750_000_000 + Double(number) * 60)
        let answer = holdsWord ? "the \(IndexWriter.word) at the end of the pier" : "nothing to see"
        return Chat(
            id: id(number), title: "chat \(number)",
            messages: [
                ChatMessage(role: .user, text: "question \(number) about the coast", time: time),
                ChatMessage(role: .assistant, text: answer, time: time),
            ], created: time, updated: time)
    }

    /// Every chat file (or only the chat `only`'s) dated an hour back, so the index trusts
    /// its stamp; the others keep theirs.
    static func age(_ root: String, only: String? = nil) throws {
        let chats = root + "/store/chats"
        let hourAgo = timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)
        var times = [hourAgo, hourAgo]
        for name in try only.map({ [$0] }) ?? FileManager.default.contentsOfDirectory(atPath: chats) {
            guard utimensat(AT_FDCWD, chats + "/" + name, &times, 0) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: chats + "/" + name])
            }
        }
    }
}

/// The progress an index reported, in order.
private final class Reports: Sendable {
    private let reports = Mutex<[(done: Int, total: Int)]>([])
    func add(_ done: Int, _ total: Int) { reports.withLock { $0.append((done, total)) } }
    var first: (done: Int, total: Int)? { reports.withLock { $0.first } }
}
