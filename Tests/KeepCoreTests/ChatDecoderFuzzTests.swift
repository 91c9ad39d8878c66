import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import Testing

/// The chat decoder over damaged chat files: bounded and seeded here, longer with
/// `KEEP_FUZZ_SCALE` (see ``FuzzPlan``).
@Suite("The chat decoder, fuzzed")
struct ChatDecoderFuzzTests {
    /// In every message and title, so a reason that quoted a chat's contents would show it.
    static let marker = "MARK-4f1c"

    @Test("damaged chat files are each either listed or reported unreadable, never both, never lost")
    func damagedChatsAreListedOrReported() async throws {
        let plan = FuzzPlan(iterations: 1_000, seed: 0xc4_a7)
        var generator = plan.generator()
        var problems: [String] = []
        var counts = (listed: 0, reported: 0, untouched: 0)
        for batch in stride(from: 0, to: plan.iterations, by: 25) {
            let storage = MemoryStorage()
            let repository = ChatRepository(storage: storage)
            var untouched: [String: Chat] = [:]
            for index in batch..<min(batch + 25, plan.iterations) {
                let chat = Self.randomChat(id: "c\(index)", &generator)
                try await repository.save(chat)
                let key = StorageKey(.chats, chat.id)
                if Int.random(in: 0..<5, using: &generator) == 0 {
                    untouched[chat.id] = chat
                } else if let text = try await storage.read(key) {
                    try await storage.write(key, TextDamage.damage(text, &generator))
                }
            }
            let found = try await Self.check(repository, storage, untouched: untouched)
            problems += (found.problems + found.readAsStoreFailures.map { "\($0) reads as a store failure" }).map {
                "batch \(batch): \($0)"
            }
            counts.listed += found.listed
            counts.reported += found.reported
            counts.untouched += untouched.count
            if problems.count >= 10 { break }
        }
        print(
            "fuzz · chat decoder: \(plan.iterations) chats (\(plan)), \(counts.untouched) untouched, "
                + "\(counts.listed) listed, \(counts.reported) reported unreadable")
        #expect(problems.isEmpty, "\(plan): \(problems.prefix(5))")
        // Damage left some chats readable and made others unreadable: both paths were taken.
        #expect(counts.reported > 0 && counts.listed > counts.untouched)
    }

    @Test("chat files damaged byte by byte on disk are each either listed or reported unreadable")
    func chatFilesDamagedOnDiskAreListedOrReported() async throws {
        let plan = FuzzPlan(iterations: 120, seed: 0xc4_d15c)
        var generator = plan.generator()
        let directory = try TemporaryDirectory()
        let store = try FileStore(root: directory.path)
        let repository = ChatRepository(storage: store)
        var untouched: [String: Chat] = [:]
        for index in 0..<plan.iterations {
            let chat = Self.randomChat(id: "c\(index)", &generator)
            try await repository.save(chat)
            let path = directory.appending("store/chats/" + chat.id)
            if Int.random(in: 0..<4, using: &generator) == 0 {
                untouched[chat.id] = chat
            } else if let bytes = FileManager.default.contents(atPath: path) {
                try Data(TextDamage.damage(bytes: Array(bytes), &generator)).write(to: URL(fileURLWithPath: path))
            }
        }
        let found = try await Self.check(repository, store, untouched: untouched)
        print(
            "fuzz · chat files on disk: \(plan.iterations) chats (\(plan)), \(found.listed) listed, \(found.reported) reported"
        )
        #expect(found.problems.isEmpty, "\(plan): \(found.problems.prefix(5))")
        #expect(found.reported > 0 && found.listed > untouched.count)
        #expect(found.readAsStoreFailures.isEmpty, "\(found.readAsStoreFailures.prefix(3))")
    }

    @Test("format 3 files of turns, titles and system prompts, damaged line by line or random, never crash or hang")
    func damagedLinesAreListedOrReported() async throws {
        let plan = FuzzPlan(iterations: 600, seed: 0xc4_13e5)
        var generator = plan.generator()
        var problems: [String] = []
        var counts = (listed: 0, reported: 0)
        for batch in stride(from: 0, to: plan.iterations, by: 25) {
            let storage = MemoryStorage()
            let repository = ChatRepository(storage: storage)
            for index in batch..<min(batch + 25, plan.iterations) {
                let id = "c\(index)"
                var lines = try await Self.eventLines(id: id, &generator)
                switch Int.random(in: 0..<6, using: &generator) {
                case 0:  // a line damaged as text
                    let at = Int.random(in: 0..<lines.count, using: &generator)
                    lines[at] = TextDamage.damage(lines[at], &generator)
                case 1:  // a line of random scalars
                    var line = ""
                    for _ in 0..<Int.random(in: 0...40, using: &generator) {
                        line.unicodeScalars.append(TextDamage.anyScalar(&generator))
                    }
                    lines.insert(line, at: Int.random(in: 1...lines.count, using: &generator))
                case 2:  // two lines swapped, or one repeated
                    let a = Int.random(in: 0..<lines.count, using: &generator)
                    let b = Int.random(in: 0..<lines.count, using: &generator)
                    if Bool.random(using: &generator) { lines.swapAt(a, b) } else { lines.insert(lines[a], at: b) }
                case 3:  // pieces that mean something to a JSON parser, in any line
                    let at = Int.random(in: 0..<lines.count, using: &generator)
                    let piece = TextDamage.strays.randomElement(using: &generator) ?? "{"
                    let cut = Int.random(in: 0...lines[at].unicodeScalars.count, using: &generator)
                    var scalars = Array(lines[at].unicodeScalars)
                    scalars.insert(contentsOf: piece.unicodeScalars, at: cut)
                    lines[at] = String(String.UnicodeScalarView(scalars))
                case 4:  // the whole text damaged
                    lines = [TextDamage.damage(lines.joined(separator: "\n"), &generator)]
                default: break
                }
                try await storage.write(StorageKey(.chats, id), lines.joined(separator: "\n") + "\n")
            }
            let found = try await Self.check(repository, storage, untouched: [:])
            problems += found.problems.map { "batch \(batch): \($0)" }
            counts.listed += found.listed
            counts.reported += found.reported
            if problems.count >= 10 { break }
        }
        print(
            "fuzz · format 3 lines: \(plan.iterations) chats (\(plan)), \(counts.listed) listed, \(counts.reported) reported"
        )
        #expect(problems.isEmpty, "\(plan): \(problems.prefix(5))")
        #expect(counts.reported > 0 && counts.listed > 0)
    }

    /// The lines of a format 3 chat `id` of random turns, titles and system prompts, as a
    /// session and the repository write them.
    static func eventLines(id: String, _ generator: inout SeededGenerator) async throws -> [String] {
        let storage = MemoryStorage()
        let repository = ChatRepository(storage: storage)
        let session = ChatSession(
            chat: Chat(id: id, created: Date(timeIntervalSince1970: 1_750_000_000)), repository: repository)
        var text = marker + " "
        for _ in 0..<Int.random(in: 0...20, using: &generator) {
            text.unicodeScalars.append(TextDamage.anyScalar(&generator))
        }
        _ = try await session.recordTurn(
            question: text, answer: text, engine: "echo", model: Bool.random(using: &generator) ? "m" : nil,
            usage: Bool.random(using: &generator) ? TokenUsage(promptTokens: 3, completionTokens: 4) : nil,
            system: Bool.random(using: &generator) ? text : nil)
        var stored = await session.stored
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: stored = try await repository.setTitle(marker + " title", in: stored)
            case 1: stored = try await repository.setSystem(Bool.random(using: &generator) ? text : nil, in: stored)
            default:
                stored = try await repository.record(
                    ChatTurn(question: text, answer: text, time: Date(), engine: "e"), in: stored)
            }
        }
        let value = try await storage.read(StorageKey(.chats, id)) ?? ""
        return value.split(separator: "\n").map(String.init)
    }

    /// What a scan and the reads after it found.
    struct Found {
        var problems: [String] = []
        var listed = 0
        var reported = 0
        /// Chats the scan reported unreadable that `read` called a store failure instead.
        var readAsStoreFailures: [String] = []
    }

    /// Scans the chats and checks the listing against the store and against each read.
    static func check(
        _ repository: ChatRepository, _ storage: any StoragePort, untouched: [String: Chat]
    ) async throws -> Found {
        var found = Found()
        let listing: ChatListing
        do {
            listing = try await repository.scan()
        } catch {
            found.problems.append("the scan failed: \(error)")
            return found
        }
        var problems: [String] = []
        let listed = Set(listing.chats.map(\.id))
        let reported = Set(listing.unreadable.map(\.id))
        let stored = Set(try await storage.listIds(.chats))
        if !listed.isDisjoint(with: reported) {
            problems.append("both listed and reported: \(listed.intersection(reported))")
        }
        if listed.union(reported) != stored {
            problems.append("lost: \(stored.subtracting(listed.union(reported)).sorted())")
        }
        for (id, chat) in untouched where listing.chats.first(where: { $0.id == id }) != chat {
            problems.append("the undamaged \(id) is not listed as it was saved")
        }
        for chat in listing.chats {
            if try await repository.read(chat.id) != chat {
                problems.append("\(chat.id) reads otherwise than it lists")
            }
        }
        for unreadable in listing.unreadable {
            if unreadable.reason.contains(marker) { problems.append("the reason for \(unreadable.id) quotes the chat") }
            do {
                _ = try await repository.read(unreadable.id)
                problems.append("\(unreadable.id) is reported unreadable but reads")
            } catch {
                if error.code == .unreadable {
                } else if error.storage?.code == .corrupt {
                    found.readAsStoreFailures.append(unreadable.id)
                } else {
                    problems.append("reading \(unreadable.id) failed: \(error)")
                }
            }
        }
        if try await repository.list() != listing.chats { problems.append("list() disagrees with the scan") }
        if try await repository.listUnreadable() != listing.unreadable {
            problems.append("listUnreadable() disagrees with the scan")
        }
        found.problems = problems
        found.listed = listed.count
        found.reported = reported.count
        return found
    }

    /// A chat of up to six messages of any text, times to the millisecond (as stored).
    static func randomChat(id: String, _ generator: inout SeededGenerator) -> Chat {
        let start = Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000_000, using: &generator)) / 1000)
        var messages: [ChatMessage] = []
        for index in 0..<Int.random(in: 0...6, using: &generator) {
            var text = marker + " "
            for _ in 0..<Int.random(in: 0...30, using: &generator) {
                text.unicodeScalars.append(TextDamage.anyScalar(&generator))
            }
            messages.append(
                ChatMessage(
                    role: index % 2 == 0 ? .user : .assistant, text: text,
                    time: start.addingTimeInterval(Double(index))))
        }
        return Chat(
            id: id, title: marker + " title", messages: messages, created: start,
            updated: start.addingTimeInterval(Double(messages.count)),
            engine: Bool.random(using: &generator) ? "echo" : nil)
    }
}
