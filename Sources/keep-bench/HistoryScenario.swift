import Foundation
import KeepApp
import KeepChatIndex
import KeepCore
import KeepFileStore

/// Listing and searching 1,000, 10,000 and 40,000 chats through the chat index (warm: the
/// index built, every file in the page cache), against reading every file raw and against
/// the bench's own scan of every file for the text; the full read of every chat, which is
/// what keep did without the index, beside them. Also measured once: the index file's size,
/// and the peak memory of `keep chats --json` at each count, and from those how much a
/// listing process grows per chat.
struct HistoryScenario: Scenario {
    let id = ScenarioID.history

    static let rawList = "raw: read every file (readdir, open, read, close)"
    static let rawStat = "raw: lstat every file (readdir, fstatat), the stamp check's floor"
    static let indexList = "chat index listing (in process)"
    static let fullList = "every chat read and decoded (ChatRepository.scan)"
    static let keepList = "keep chats --json (a whole process)"
    static let scan = "bench scan: read every file, find the text ignoring ASCII case"
    static let indexSearch = "chat index search (in process)"
    static let fullSearch = "every chat read and searched (ChatRepository.search)"
    static let growth = "peak memory of keep chats --json, growth per chat"

    static func listTitle(_ count: Int) -> String { "history: list \(Format.count(count)) chats" }
    static func searchTitle(_ count: Int) -> String { "history: search \(Format.count(count)) chats" }
    static func memory(_ count: Int) -> String { "peak memory of keep chats --json, \(Format.count(count)) chats" }
    static func indexSize(_ count: Int) -> String { "chat index file, \(Format.count(count)) chats" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let keep = StartupScenario.keepExecutable()
        let hasKeep = FileManager.default.isExecutableFile(atPath: keep)
        try RawFile.makeDirectories(directory + "/home")
        let launcher = Launcher(home: directory + "/home")
        var comparisons: [Comparison] = []
        var facts: [Fact] = []
        var peaks: [(count: Int, kibibytes: Int)] = []
        for count in scale.historyCounts {
            let chats = try await ChatFixtures.make(count)
            let dataHome = directory + "/\(count)"
            let root = dataHome + "/keep"
            let namespace = try ChatFixtures.layDown(chats, under: root)
            RawFile.flushEverything()
            // A text one chat holds, from the middle of its first question.
            let text = String(Payload.text(200, seed: (count / 2) * 4).dropFirst(50).prefix(8))
            let needle = Array(text.lowercased().utf8)
            let store = try FileStore(root: root)
            let repository = ChatRepository(storage: store)
            let index = ChatIndex(root: root, storage: store)
            guard try await index.search(text).count == 1, try await index.listing().chats.count == count else {
                throw BenchError(.setup, "chat index", "the index of \(count) chats does not list and find them")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int) ?? 0
            facts.append(Fact(name: Self.indexSize(count), value: Double(size) / 1_048_576, unit: "MiB"))
            if hasKeep {
                var runs: [Int] = []
                for _ in 0..<3 {
                    let run = try PeakMemory.run(
                        keep, ["chats", "--json"], environment: launcher.environment(dataHome: dataHome),
                        in: directory)
                    guard run.status == 0 else {
                        throw BenchError(.setup, "keep chats --json", "\(keep) exited \(run.status)")
                    }
                    runs.append(run.kibibytes)
                }
                let peak = runs.sorted()[1]
                peaks.append((count, peak))
                facts.append(Fact(name: Self.memory(count), value: Double(peak), unit: "KiB"))
            }
            // Past 10,000 chats every contender is bounded, so a run stays within minutes.
            let bound = count > 10_000 ? scale.slowRepetitions : nil
            var listing = [
                Contender(Self.rawList, count: count, sampleLimit: bound) {
                    for name in try RawFile.names(in: namespace) { _ = try RawFile.read(namespace + "/" + name) }
                },
                Contender(Self.rawStat, count: count, sampleLimit: bound) { _ = try RawFile.statEvery(in: namespace) },
                Contender(Self.indexList, count: count, sampleLimit: bound) { _ = try await index.listing() },
                Contender(Self.fullList, count: count, sampleLimit: scale.slowRepetitions) {
                    _ = try await repository.scan()
                },
            ]
            if hasKeep {
                listing.append(
                    Contender(
                        Self.keepList, note: StartupScenario.linking(keep), count: count,
                        sampleLimit: scale.slowRepetitions
                    ) {
                        try launcher.run(keep, ["chats", "--json"], dataHome: dataHome)
                    })
            }
            comparisons.append(
                Comparison(
                    title: Self.listTitle(count), metric: .latency, operation: "listing", baseline: Self.rawList,
                    contenders: listing))
            comparisons.append(
                Comparison(
                    title: Self.searchTitle(count), metric: .latency, operation: "search", baseline: Self.scan,
                    contenders: [
                        Contender(Self.scan, count: count, sampleLimit: bound) {
                            _ = try Self.scan(namespace, for: needle)
                        },
                        Contender(Self.indexSearch, count: count, sampleLimit: bound) {
                            _ = try await index.search(text)
                        },
                        Contender(Self.fullSearch, count: count, sampleLimit: scale.slowRepetitions) {
                            _ = try await repository.search(text)
                        },
                    ]))
        }
        if let first = peaks.first, let last = peaks.last, last.count > first.count {
            let perChat = Double(last.kibibytes - first.kibibytes) * 1024 / Double(last.count - first.count)
            facts.append(Fact(name: Self.growth, value: perChat, unit: "bytes per chat"))
        }
        return .ready(comparisons, facts: facts)
    }

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
