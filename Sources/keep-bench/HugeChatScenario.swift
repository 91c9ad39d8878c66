import Foundation
import KeepApp
import KeepChatIndex
import KeepCore
import KeepFileStore
import KeepPorts

/// A 200 MB chat in a store of realistic chats (issue 25 item 5): listing and search warm,
/// and after a turn appended to the huge chat behind keep's back (the index reads it once
/// more), against one raw read of the huge file; `keep chats show` of it as a whole process
/// (it streams) against `cat` of the file; and, measured once, the peak memory of `keep
/// chats --json`, of `keep chats show` and of `keep ask --chat` in it (echo engine), and how
/// long that ask took.
struct HugeChatScenario: Scenario {
    let id = ScenarioID.hugeChat

    static let rawHuge = "raw: read the huge chat's file once"
    static let catHuge = "cat of the huge chat's file (the real command, to /dev/null)"
    static let listing = "chat index listing, nothing changed"
    static let search = "chat index search, nothing changed"
    static let changedListing = "chat index listing after a turn was appended to the huge chat"
    static let changedSearch = "chat index search after a turn was appended to the huge chat"
    static let show = "keep chats show of the huge chat (a whole process, to /dev/null)"

    static func title(_ megabytes: Int) -> String { "a chat of \(megabytes) MB among realistic chats" }
    static func showTitle(_ megabytes: Int) -> String { "keep chats show of a chat of \(megabytes) MB" }
    static let showMemory = "peak memory of keep chats show, the huge chat"
    static let listMemory = "peak memory of keep chats --json, with the huge chat"
    static let askMemory = "peak memory of keep ask in the huge chat (echo engine)"
    static let askTime = "time of keep ask in the huge chat (echo engine)"
    static let hugeBytes = "the huge chat's file"

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let keep = StartupScenario.keepExecutable()
        let dataHome = directory + "/data"
        let root = dataHome + "/keep"
        let laid = try await ChatFixtures.layDown(scale.hugeChatCompany, .realistic, under: root)
        let hugeId = Payload.id("h", 0)
        let hugePath = laid.namespace + "/" + hugeId
        let size = try await Self.layDownHuge(hugeId, at: hugePath, bytes: scale.hugeChatBytes)
        RawFile.flushEverything()
        let files = try FileStore(root: root)
        let index = ChatIndex(root: root, storage: files)
        let text = HistoryScenario.text(in: ChatFixtures.chat(0, .realistic).turns[0].question)
        guard try await index.listing().chats.count == laid.count + 1, try await !index.search(text).isEmpty else {
            throw BenchError(.setup, "huge chat", "the index does not list the chats or find \"\(text)\"")
        }
        let megabytes = size / 1_000_000
        var facts = [Fact(name: Self.hugeBytes, value: Double(size) / 1_048_576, unit: "MiB")]
        let turn = Array(try await Self.turnLine(index: 1, chat: hugeId).utf8)
        let bound = scale.coldRepetitions
        var comparisons = [
            Comparison(
                title: Self.title(megabytes), metric: .latency, operation: "listing or search", baseline: Self.rawHuge,
                contenders: [
                    Contender(Self.rawHuge, count: laid.count, sampleLimit: bound) { _ = try RawFile.read(hugePath) },
                    Contender(Self.listing, count: laid.count, sampleLimit: bound) { _ = try await index.listing() },
                    Contender(Self.search, count: laid.count, sampleLimit: bound) { _ = try await index.search(text) },
                    Contender.timed(Self.changedListing, count: laid.count, sampleLimit: bound) {
                        try Self.append(turn, to: hugePath)
                        let started = ContinuousClock.now
                        _ = try await index.listing()
                        return ContinuousClock.now - started
                    },
                    Contender.timed(Self.changedSearch, count: laid.count, sampleLimit: bound) {
                        try Self.append(turn, to: hugePath)
                        let started = ContinuousClock.now
                        _ = try await index.search(text)
                        return ContinuousClock.now - started
                    },
                ])
        ]
        guard FileManager.default.isExecutableFile(atPath: keep) else { return .ready(comparisons, facts: facts) }
        try RawFile.makeDirectories(directory + "/home")
        let launcher = Launcher(home: directory + "/home")
        let environment = launcher.environment(dataHome: dataHome)
        let peak = { (arguments: [String]) throws -> Double in
            let run = try PeakMemory.run(keep, arguments, environment: environment, in: directory)
            guard run.status == 0 else {
                throw BenchError(.setup, "keep \(arguments[0])", "\(keep) exited \(run.status)")
            }
            return Double(run.kibibytes)
        }
        facts.append(Fact(name: Self.listMemory, value: try peak(["chats", "--json"]), unit: "KiB"))
        facts.append(Fact(name: Self.showMemory, value: try peak(["chats", "show", hugeId]), unit: "KiB"))
        let started = ContinuousClock.now
        facts.append(
            Fact(name: Self.askMemory, value: try peak(["ask", "--chat", hugeId, "one more question"]), unit: "KiB"))
        facts.append(
            Fact(name: Self.askTime, value: Sampler.seconds(ContinuousClock.now - started), unit: "s (one run)"))
        comparisons.append(
            Comparison(
                title: Self.showTitle(megabytes), metric: .latency, operation: "show", baseline: Self.catHuge,
                contenders: [
                    Contender(Self.catHuge, sampleLimit: bound) {
                        try BaselineCommand.run(["cat", "--", hugeId], in: laid.namespace)
                    },
                    Contender(Self.show, note: StartupScenario.linking(keep), sampleLimit: bound) {
                        try launcher.run(keep, ["chats", "show", hugeId], dataHome: dataHome)
                    },
                ]))
        return .ready(comparisons, facts: facts)
    }

    /// One realistic turn of the chat `chat`, as keep appends it: the line after the head
    /// that recording it in a new chat writes.
    private static func turnLine(index: Int, chat: String) async throws -> String {
        let memory = MemoryStorage()
        let (fixture, turns) = ChatFixtures.chat(index, .realistic)
        let repository = ChatRepository(storage: memory)
        let blank = Chat(id: chat, title: fixture.title, created: fixture.created, engine: "echo")
        _ = try await repository.record(turns[0], in: StoredChat(new: blank))
        guard let text = try await memory.read(StorageKey(.chats, chat)),
            let newline = text.firstIndex(of: "\n")
        else {
            throw BenchError(.setup, "huge chat", "a recorded turn reads as absent")
        }
        return String(text[text.index(after: newline)...])
    }

    /// Writes the chat `id` at `path`: a head and realistic turns, as keep records them, until
    /// it holds `bytes`; answers its size. Dated an hour back, as the other chats are.
    private static func layDownHuge(_ id: String, at path: String, bytes: Int) async throws -> Int {
        let memory = MemoryStorage()
        let (fixture, turns) = ChatFixtures.chat(0, .realistic)
        let blank = Chat(id: id, title: "a very long chat", created: fixture.created, engine: "echo")
        _ = try await ChatRepository(storage: memory).record(turns[0], in: StoredChat(new: blank))
        guard let first = try await memory.read(StorageKey(.chats, id)) else {
            throw BenchError(.setup, "huge chat", "the chat just recorded reads as absent")
        }
        // Distinct turns, cycled: the chat reads as many turns, not one repeated.
        var lines: [[UInt8]] = []
        for index in 1...64 { lines.append(Array(try await turnLine(index: index, chat: id).utf8)) }
        var chunk = Array(first.utf8)
        var size = 0
        try RawFile.create(path, [])
        var next = 0
        while size < bytes {
            while chunk.count < min(8 << 20, bytes) {
                chunk += lines[next % lines.count]
                next += 1
            }
            try RawFile.appendAndFlush(path, chunk)
            size += chunk.count
            chunk.removeAll(keepingCapacity: true)
        }
        try dateBack(path)
        return size
    }

    /// A turn appended to the chat at `path` behind keep's back, the file dated an hour
    /// back again: its size changed, so the index reads it once more, and only once.
    private static func append(_ turn: [UInt8], to path: String) throws {
        try RawFile.appendAndFlush(path, turn)
        try dateBack(path)
    }

    private static func dateBack(_ path: String) throws {
        let hourAgo = timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)
        var times = [hourAgo, hourAgo]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
            throw StorageError.system("utimensat", path: path, errno: errno)
        }
    }
}
