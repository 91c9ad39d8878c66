import Foundation
import KeepApp
import KeepChatIndex
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSealed

/// Listing and searching a history through the chat index, warm (the index built, every file
/// in the page cache) and cold (the index deleted first), in process and as whole `keep`
/// processes, against the real `cat` of every chat file and `grep -rli` over them, a raw read
/// of every file, and every chat read once through keep (``/KeepCore/ChatRepository/scan()``).
///
/// The chats are realistic by default (``ChatFixtures/Kind/realistic``, 10,000 and 40,000 of
/// them), with today's 2 KB chats as a second size; the same realistic chats sealed
/// (``/KeepSealed/SealedStorage`` over the file store, under a key of the bench's own) are
/// listed and searched beside the plain ones. Measured once: the chats' bytes, the index's
/// size beside them, and the peak memory of `keep chats --json` warm and of the cold rebuild
/// as `keep chats --json` and `keep chats search` (the index deleted first).
struct HistoryScenario: Scenario {
    let id = ScenarioID.history

    static let cat = "cat of every chat file (the real command, to /dev/null)"
    static let grep = "grep -rli over the chat files (the real command)"
    static let rawList = "raw: read every file (readdir, open, read, close)"
    static let rawStat = "raw: lstat every file (readdir, fstatat), the stamp check's floor"
    static let indexList = "chat index listing (in process)"
    static let fullList = "every chat read once through keep (ChatRepository.scan)"
    static let keepList = "keep chats --json (a whole process)"
    static let scan = "bench scan: read every file, find the text ignoring ASCII case"
    static let indexSearch = "chat index search (in process)"
    static let keepSearch = "keep chats search (a whole process)"
    static let fullSearch = "every chat read and searched (ChatRepository.search)"
    static let coldList = "index deleted, then a listing (in process)"
    static let coldSearch = "index deleted, then a search: summaries and words in one pass"
    static let coldKeepList = "index deleted, then keep chats --json (a whole process)"
    static let coldKeepSearch = "index deleted, then keep chats search (a whole process)"
    static let firstSearch = "the first search after a cold listing (the search alone)"
    static let plainIndexList = "plain chats: chat index listing"
    static let sealedIndexList = "sealed chats: chat index listing"
    static let plainScan = "plain chats: every chat read once (ChatRepository.scan)"
    static let sealedScan = "sealed chats: every chat read and opened once (ChatRepository.scan)"
    static let plainIndexSearch = "plain chats: chat index search"
    static let sealedIndexSearch = "sealed chats: chat index search"
    static let growth = "peak memory of keep chats --json, growth per chat"

    /// `"40,000 realistic chats"`, `"10,000 small chats"`.
    static func label(_ count: Int, _ kind: ChatFixtures.Kind) -> String { "\(Format.count(count)) \(kind) chats" }
    static func listTitle(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "history: list \(label(count, kind)), warm"
    }
    static func searchTitle(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "history: search \(label(count, kind)), warm"
    }
    static func coldTitle(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "history: rebuild over \(label(count, kind)), cold (the index deleted first)"
    }
    static func firstSearchTitle(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "history: the first search after a cold listing, \(label(count, kind))"
    }
    static func sealedListTitle(_ count: Int) -> String {
        "history: sealed against plain, list \(label(count, .realistic)), warm"
    }
    static func sealedSearchTitle(_ count: Int) -> String {
        "history: sealed against plain, search \(label(count, .realistic)), warm"
    }
    static func memory(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "peak memory of keep chats --json, \(label(count, kind)), warm"
    }
    static func coldListMemory(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "peak memory of keep chats --json, \(label(count, kind)), cold"
    }
    static func coldSearchMemory(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "peak memory of keep chats search, \(label(count, kind)), cold"
    }
    static func chatBytes(_ count: Int, _ kind: ChatFixtures.Kind = .realistic, sealed: Bool = false) -> String {
        "chat files, \(label(count, kind))\(sealed ? ", sealed" : "")"
    }
    static func averageBytes(_ count: Int, _ kind: ChatFixtures.Kind = .realistic, sealed: Bool = false) -> String {
        "chat file on average, \(label(count, kind))\(sealed ? ", sealed" : "")"
    }
    static func indexSize(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "chat index file, \(label(count, kind))"
    }
    static func matches(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "chats holding the text searched for, \(label(count, kind))"
    }
    static func indexShare(_ count: Int, _ kind: ChatFixtures.Kind = .realistic) -> String {
        "chat index over the chats' bytes, \(label(count, kind))"
    }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let keep = StartupScenario.keepExecutable()
        let hasKeep = FileManager.default.isExecutableFile(atPath: keep)
        try RawFile.makeDirectories(directory + "/home")
        let setting = Setting(
            directory: directory, keep: hasKeep ? keep : nil, launcher: Launcher(home: directory + "/home"),
            scale: scale)
        var comparisons: [Comparison] = []
        var facts: [Fact] = []
        var peaks: [(count: Int, kibibytes: Int)] = []
        var plainStores: [Int: Store] = [:]
        for (kind, counts) in [(ChatFixtures.Kind.small, scale.smallHistoryCounts), (.realistic, scale.historyCounts)] {
            for count in counts {
                let store = try await Store.make(count, kind, in: directory + "/\(kind)-\(count)", sealedWith: nil)
                if kind == .realistic { plainStores[count] = store }
                let (measured, figures, peak) = try await Self.history(store, setting)
                comparisons += measured
                facts += figures
                if kind == .realistic, let peak { peaks.append((count, peak)) }
            }
        }
        var key = [UInt8](repeating: 0, count: 32)
        for index in key.indices { key[index] = UInt8(truncatingIfNeeded: index &* 37 &+ 11) }
        for count in scale.sealedHistoryCounts {
            guard let plain = plainStores[count] else { continue }
            let sealed = try await Store.make(count, .realistic, in: directory + "/sealed-\(count)", sealedWith: key)
            facts.append(
                Fact(
                    name: Self.chatBytes(count, sealed: true), value: Double(sealed.laid.bytes) / 1_048_576, unit: "MiB"
                ))
            facts.append(Fact(name: Self.averageBytes(count, sealed: true), value: sealed.laid.average, unit: "bytes"))
            comparisons += Self.sealedAgainstPlain(sealed, plain, setting)
        }
        if let first = peaks.first, let last = peaks.last, last.count > first.count {
            let perChat = Double(last.kibibytes - first.kibibytes) * 1024 / Double(last.count - first.count)
            facts.append(Fact(name: Self.growth, value: perChat, unit: "bytes per chat"))
        }
        return .ready(comparisons, facts: facts)
    }

    // MARK: - One history

    /// What every history shares: where the run works, `keep` when it is built, the scale.
    private struct Setting: Sendable {
        let directory: String
        let keep: String?
        let launcher: Launcher
        let scale: Scale
    }

    /// One history laid down, with its repository, its index and a text one of its chats holds.
    private struct Store: Sendable {
        let laid: ChatFixtures.Laid
        let kind: ChatFixtures.Kind
        let dataHome: String
        let root: String
        let repository: ChatRepository
        let index: ChatIndex
        let text: String

        static func make(
            _ count: Int, _ kind: ChatFixtures.Kind, in dataHome: String, sealedWith key: [UInt8]?
        ) async throws -> Store {
            let root = dataHome + "/keep"
            let laid = try await ChatFixtures.layDown(count, kind, under: root, sealedWith: key)
            RawFile.flushEverything()
            let files = try FileStore(root: root)
            let storage: any StampedStorage =
                try key.map { try SealedStorage(files, dataKey: $0, sealing: [.chats]) } ?? files
            let repository = ChatRepository(storage: storage)
            let index = ChatIndex(root: root, storage: storage)
            let text = HistoryScenario.text(in: ChatFixtures.chat(count / 2, kind).turns[0].question)
            guard try await !index.search(text).isEmpty, try await index.listing().chats.count == count else {
                throw BenchError(
                    .setup, "chat index", "the index of \(count) chats does not list them and find \"\(text)\"")
            }
            return Store(
                laid: laid, kind: kind, dataHome: dataHome, root: root, repository: repository, index: index, text: text
            )
        }

        /// Deletes the index: the next listing or search rebuilds it.
        func deleteIndex() {
            for suffix in ["", "-wal", "-shm"] { unlink(index.path + suffix) }
        }
    }

    /// Two words of `question` as they stand in it, the longer of them as long as any
    /// (letters only): what a person searches for, a name or a rare word with its neighbour,
    /// which few chats hold.
    static func text(in question: String) -> String {
        let words = question.split(separator: " ").map(String.init)
        func isWord(_ word: String) -> Bool { word.count >= 2 && word.allSatisfy { $0.isASCII && $0.isLetter } }
        var best: (index: Int, length: Int)?
        for index in words.indices.dropLast() where isWord(words[index]) && isWord(words[index + 1]) {
            let length = max(words[index].count, words[index + 1].count)
            if length > (best?.length ?? 0) { best = (index, length) }
        }
        guard let best else { return String(question.prefix(12)) }
        return words[best.index] + " " + words[best.index + 1]
    }

    private static func history(
        _ store: Store, _ setting: Setting
    ) async throws -> (comparisons: [Comparison], facts: [Fact], peak: Int?) {
        let count = store.laid.count
        let kind = store.kind
        let namespace = store.laid.namespace
        let index = store.index
        let repository = store.repository
        let text = store.text
        let needle = Array(text.lowercased().utf8)
        let scale = setting.scale
        var facts = [
            Fact(name: Self.chatBytes(count, kind), value: Double(store.laid.bytes) / 1_048_576, unit: "MiB"),
            Fact(name: Self.averageBytes(count, kind), value: store.laid.average, unit: "bytes"),
        ]
        let matched = Set(try await index.search(text).map(\.chatId)).count
        facts.append(Fact(name: Self.matches(count, kind), value: Double(matched), unit: "chats"))
        let size = (try? FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int) ?? 0
        facts.append(Fact(name: Self.indexSize(count, kind), value: Double(size) / 1_048_576, unit: "MiB"))
        facts.append(
            Fact(name: Self.indexShare(count, kind), value: Double(size) / Double(max(1, store.laid.bytes)), unit: "×"))
        // Past 10,000 chats every contender is bounded, so a run stays within minutes.
        let bound = count > 10_000 ? scale.slowRepetitions : nil
        let cold = scale.coldRepetitions
        // Reading every chat takes seconds past 10,000 realistic chats: as few samples as a rebuild.
        let full = count > 10_000 ? cold : scale.slowRepetitions
        var listing = [
            Contender(Self.cat, count: count, sampleLimit: bound) {
                try BaselineCommand.run(["/bin/sh", "-c", "exec cat -- * > /dev/null"], in: namespace)
            },
            Contender(Self.rawList, count: count, sampleLimit: bound) {
                for name in try RawFile.names(in: namespace) { _ = try RawFile.read(namespace + "/" + name) }
            },
            Contender(Self.rawStat, count: count, sampleLimit: bound) { _ = try RawFile.statEvery(in: namespace) },
            Contender(Self.indexList, count: count, sampleLimit: bound) { _ = try await index.listing() },
            Contender(Self.fullList, count: count, sampleLimit: full) { _ = try await repository.scan() },
        ]
        var search = [
            Contender(Self.grep, count: count, sampleLimit: bound) {
                try BaselineCommand.run(["grep", "-rli", "--", text, "."], in: namespace, found: true)
            },
            Contender(Self.scan, count: count, sampleLimit: bound) { _ = try Self.scan(namespace, for: needle) },
            Contender(Self.indexSearch, count: count, sampleLimit: bound) { _ = try await index.search(text) },
            Contender(Self.fullSearch, count: count, sampleLimit: full) { _ = try await repository.search(text) },
        ]
        var rebuild = [
            Contender(Self.fullList, count: count, sampleLimit: cold) { _ = try await repository.scan() },
            Contender.timed(Self.coldList, count: count, sampleLimit: cold) {
                store.deleteIndex()
                let started = ContinuousClock.now
                _ = try await index.listing()
                let elapsed = ContinuousClock.now - started
                // The index whole again, for the warm contenders beside this one.
                _ = try await index.search(text)
                return elapsed
            }.cold,
            Contender(Self.coldSearch, count: count, sampleLimit: cold) {
                store.deleteIndex()
                _ = try await index.search(text)
            }.cold,
        ]
        var peak: Int?
        if let keep = setting.keep {
            let launcher = setting.launcher
            let dataHome = store.dataHome
            let linking = StartupScenario.linking(keep)
            peak = try Self.peak(keep, ["chats", "--json"], store, setting)
            facts.append(Fact(name: Self.memory(count, kind), value: Double(peak ?? 0), unit: "KiB"))
            store.deleteIndex()
            let coldList = try Self.peak(keep, ["chats", "--json"], store, setting, runs: 1)
            facts.append(Fact(name: Self.coldListMemory(count, kind), value: Double(coldList), unit: "KiB"))
            store.deleteIndex()
            let coldSearch = try Self.peak(keep, ["chats", "search", text], store, setting, runs: 1)
            facts.append(Fact(name: Self.coldSearchMemory(count, kind), value: Double(coldSearch), unit: "KiB"))
            listing.append(
                Contender(Self.keepList, note: linking, count: count, sampleLimit: scale.slowRepetitions) {
                    try launcher.run(keep, ["chats", "--json"], dataHome: dataHome)
                })
            search.append(
                Contender(Self.keepSearch, note: linking, count: count, sampleLimit: scale.slowRepetitions) {
                    try launcher.run(keep, ["chats", "search", text], dataHome: dataHome)
                })
            rebuild.append(
                Contender.timed(Self.coldKeepList, note: linking, count: count, sampleLimit: cold) {
                    store.deleteIndex()
                    let started = ContinuousClock.now
                    try launcher.run(keep, ["chats", "--json"], dataHome: dataHome)
                    let elapsed = ContinuousClock.now - started
                    _ = try await index.search(text)
                    return elapsed
                }.cold)
            rebuild.append(
                Contender(Self.coldKeepSearch, note: linking, count: count, sampleLimit: cold) {
                    store.deleteIndex()
                    try launcher.run(keep, ["chats", "search", text], dataHome: dataHome)
                }.cold)
        }
        let comparisons = [
            Comparison(
                title: Self.listTitle(count, kind), metric: .latency, operation: "listing", baseline: Self.cat,
                contenders: listing),
            Comparison(
                title: Self.searchTitle(count, kind), metric: .latency, operation: "search", baseline: Self.grep,
                contenders: search),
            Comparison(
                title: Self.coldTitle(count, kind), metric: .latency, operation: "rebuild", baseline: Self.fullList,
                contenders: rebuild),
            Comparison(
                title: Self.firstSearchTitle(count, kind), metric: .latency, operation: "search",
                baseline: Self.indexSearch,
                contenders: [
                    Contender(Self.indexSearch, count: count, sampleLimit: bound) { _ = try await index.search(text) },
                    Contender.timed(Self.firstSearch, count: count, sampleLimit: cold) {
                        store.deleteIndex()
                        _ = try await index.listing()
                        let started = ContinuousClock.now
                        _ = try await index.search(text)
                        return ContinuousClock.now - started
                    }.cold,
                ]),
        ]
        return (comparisons, facts, peak)
    }

    /// The median peak memory of `runs` runs of `keep arguments` over `store`, in KiB.
    private static func peak(
        _ keep: String, _ arguments: [String], _ store: Store, _ setting: Setting, runs: Int = 3
    ) throws -> Int {
        var peaks: [Int] = []
        for _ in 0..<runs {
            let run = try PeakMemory.run(
                keep, arguments, environment: setting.launcher.environment(dataHome: store.dataHome),
                in: setting.directory)
            guard run.status == 0 else {
                throw BenchError(.setup, "keep \(arguments.joined(separator: " "))", "\(keep) exited \(run.status)")
            }
            peaks.append(run.kibibytes)
        }
        return peaks.sorted()[peaks.count / 2]
    }

    /// Sealed chats listed and searched beside the same chats plain.
    private static func sealedAgainstPlain(_ sealed: Store, _ plain: Store, _ setting: Setting) -> [Comparison] {
        let count = sealed.laid.count
        let bound = count > 10_000 ? setting.scale.slowRepetitions : nil
        // Reading every sealed chat takes tens of seconds at 40,000: as few samples as a rebuild.
        let slow = count > 10_000 ? setting.scale.coldRepetitions : setting.scale.slowRepetitions
        return [
            Comparison(
                title: Self.sealedListTitle(count), metric: .latency, operation: "listing",
                baseline: Self.plainIndexList,
                contenders: [
                    Contender(Self.plainIndexList, count: count, sampleLimit: bound) {
                        _ = try await plain.index.listing()
                    },
                    Contender(Self.sealedIndexList, count: count, sampleLimit: bound) {
                        _ = try await sealed.index.listing()
                    },
                    Contender(Self.plainScan, count: count, sampleLimit: slow) {
                        _ = try await plain.repository.scan()
                    },
                    Contender(Self.sealedScan, count: count, sampleLimit: slow) {
                        _ = try await sealed.repository.scan()
                    },
                ]),
            Comparison(
                title: Self.sealedSearchTitle(count), metric: .latency, operation: "search",
                baseline: Self.plainIndexSearch,
                contenders: [
                    Contender(Self.plainIndexSearch, count: count, sampleLimit: bound) {
                        _ = try await plain.index.search(plain.text)
                    },
                    Contender(Self.sealedIndexSearch, count: count, sampleLimit: bound) {
                        _ = try await sealed.index.search(sealed.text)
                    },
                ]),
        ]
    }

    // MARK: - The bench's own scan

    /// How many files under `namespace` hold `needle` (lower-case ASCII), ignoring ASCII
    /// case: what `grep -rli` does, done here as tightly as Swift allows (no bounds checks,
    /// `memcmp` once the first byte matches).
    static func scan(_ namespace: String, for needle: [UInt8]) throws -> Int {
        var found = 0
        for name in try RawFile.names(in: namespace) {
            var bytes = try RawFile.read(namespace + "/" + name)
            if bytes.withUnsafeMutableBufferPointer({ contains($0, needle) }) { found += 1 }
        }
        return found
    }

    /// Whether `haystack`, lower-cased in place, holds `needle`.
    private static func contains(_ haystack: UnsafeMutableBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, needle.count <= haystack.count else {
            return false
        }
        for index in 0..<haystack.count where base[index] &- 0x41 < 26 { base[index] |= 0x20 }
        return needle.withUnsafeBytes { wanted in
            guard let wanted = wanted.baseAddress else { return false }
            var index = 0
            let last = haystack.count - needle.count
            while index <= last {
                if base[index] == first, memcmp(base + index, wanted, needle.count) == 0 { return true }
                index += 1
            }
            return false
        }
    }
}
