import Foundation
import KeepCore
import KeepFileStore
import KeepPorts
import Synchronization

/// The one-time migration of a `store.json` of 5,000 chats into an empty file store: the
/// time a user waits at the first launch of a new build.
///
/// Against reading `store.json` once (a ``KeepFileStore/BlobSnapshot`` listing it, the
/// baseline): the ratio says how many file reads the copy costs, and a copy that re-read
/// the file for each value (as it once did) shows as thousands. Beside it, the same values
/// written to an empty file store one after another with no migration (one durable write
/// each, no flush shared): the migration, which keeps a few writes in flight so they share
/// flushes, should be below it. Each sample copies into a fresh store of its own, since a
/// migration runs once.
struct MigrationScenario: Scenario {
    let id = ScenarioID.migration

    static let migration = "migrateStorage from store.json"
    static let writesAlone = "the same values written one after another, no migration"
    static let readOnce = "reading store.json once"

    static func title(_ count: Int) -> String { "migration: \(Format.count(count)) chats from store.json" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let count = scale.isQuick ? 200 : 5_000
        let chats = try await ChatFixtures.make(count)
        let legacy = directory + "/legacy"
        try RawFile.makeDirectories(legacy)
        var members: [String: String] = [:]
        for chat in chats { members["keep.chats.\(chat.id)"] = String(decoding: chat.bytes, as: UTF8.self) }
        let json = try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
        try RawFile.create(legacy + "/store.json", Array(json))
        RawFile.flushEverything()

        // Checked once: the copy is whole, or the figures would be of something else.
        let check = try FileStore(root: directory + "/check")
        let report = try await migrateStorage(from: try BlobSnapshot(root: legacy), to: check)
        guard report.copied == count, report.skipped.isEmpty else {
            throw BenchError(
                .setup, "migration", "copied \(report.copied) of \(count), skipped \(report.skipped.count)")
        }
        let values = chats.map { (StorageKey(.chats, $0.id), String(decoding: $0.bytes, as: UTF8.self)) }
        let fresh = FreshRoots(under: directory + "/targets")
        let bound = scale.slowRepetitions
        return .ready([
            Comparison(
                title: Self.title(count), metric: .latency, operation: "copy", baseline: Self.readOnce,
                contenders: [
                    Contender(Self.migration, note: "into an empty store", count: count, sampleLimit: bound) {
                        let target = try FileStore(root: fresh.next())
                        _ = try await migrateStorage(from: try BlobSnapshot(root: legacy), to: target)
                    },
                    Contender(Self.writesAlone, note: "no flush shared", count: count, sampleLimit: bound) {
                        let target = try FileStore(root: fresh.next())
                        for (key, value) in values { try await target.write(key, value) }
                    },
                    Contender(Self.readOnce, count: count) {
                        _ = try await BlobSnapshot(root: legacy).listIds(.chats)
                    },
                ])
        ])
    }
}

/// A new, not yet existing root for each sample that needs an empty store.
private final class FreshRoots: Sendable {
    private let base: String
    private let counter = Mutex(0)

    init(under base: String) {
        self.base = base
    }

    func next() -> String {
        base + "/"
            + String(
                counter.withLock { count in
                    count += 1
                    return count
                })
    }
}
