import Foundation
import KeepConformance
import KeepCore
import KeepFileStore
import KeepPorts
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("One-time migration")
struct MigrationTests {
    private let marker = StorageKey(.cache, "migrated-from-store-json")

    @Test("migration runs once and never overwrites newer data", arguments: StoreKind.allCases)
    func runsOnceAndNeverOverwrites(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let source = try fixture.openLegacy()
        let target = try fixture.open()
        let legacy: [StorageKey: String] = [
            StorageKey(.chats, "c1"): "old c1", StorageKey(.chats, "c2"): "old c2",
            StorageKey(.settings, "settings"): #"{"engineId": "remote"}"#, StorageKey(.drafts, "c2"): "draft",
            StorageKey(.chats, "blank"): "",
        ]
        for (key, value) in legacy { try await source.write(key, value) }
        try await target.write(StorageKey(.chats, "c1"), "new c1")
        try await target.write(StorageKey(.chats, "blank-newer"), "")

        let report = try await migrateStorage(from: source, to: target)
        #expect(report == MigrationReport(alreadyDone: false, copied: 4, keptNewer: 1))
        #expect(try await target.read(StorageKey(.chats, "c1")) == "new c1")
        #expect(try await target.read(StorageKey(.chats, "c2")) == "old c2")
        #expect(try await target.read(StorageKey(.chats, "blank")) == "")
        #expect(try await target.read(StorageKey(.drafts, "c2")) == "draft")
        #expect(try await target.read(marker) != nil)

        // Runs once: later values in the source stay there, and the target's changes stand.
        try await source.write(StorageKey(.chats, "c3"), "written to the old store later")
        try await target.write(StorageKey(.chats, "c2"), "changed on the new store")
        let again = try await migrateStorage(from: source, to: target)
        #expect(again == MigrationReport(alreadyDone: true, copied: 0, keptNewer: 0))
        #expect(try await target.read(StorageKey(.chats, "c3")) == nil)
        #expect(try await target.read(StorageKey(.chats, "c2")) == "changed on the new store")

        // Never deletes the source.
        for (key, value) in legacy { #expect(try await source.read(key) == value, "\(key)") }
    }

    @Test("the done-marker lives in the target and is written last")
    func theMarkerIsWrittenLast() async throws {
        let source = MemoryStorage([
            StorageKey(.chats, "a"): "1", StorageKey(.chats, "b"): "2", StorageKey(.settings, "settings"): "{}",
        ])
        let target = FaultyStorage(MemoryStorage())
        _ = try await migrateStorage(from: source, to: target)

        let written = await target.written
        #expect(written.count == 4)
        #expect(written.last == marker)
        #expect(try await source.read(marker) == nil)
    }

    @Test(
        "a migration that fails part-way writes no marker, and the next launch finishes it",
        arguments: StoreKind.allCases)
    func aPartialFailureIsRetried(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let source = try fixture.openLegacy()
        for id in ["a", "b", "c"] { try await source.write(StorageKey(.chats, id), "value \(id)") }
        let target = FaultyStorage(try fixture.open())
        await target.fail([.write], errno: ENOSPC, only: StorageKey(.chats, "b"))

        do {
            _ = try await migrateStorage(from: source, to: target)
            Issue.record("the migration reported success with a value not copied")
        } catch {
            #expect(error.copied == 2)
            #expect(error.failures.map(\.code) == [.full])
            #expect(error.description.contains("retried at the next launch"))
        }
        #expect(try await target.read(marker) == nil)
        #expect(try await target.read(StorageKey(.chats, "a")) == "value a")

        await target.heal()
        let report = try await migrateStorage(from: source, to: try fixture.open())
        #expect(report == MigrationReport(alreadyDone: false, copied: 1, keptNewer: 2))
        #expect(try await target.read(StorageKey(.chats, "b")) == "value b")
        #expect(try await target.read(marker) != nil)
    }

    @Test("a failed migration leaves the new store usable", arguments: StoreKind.allCases)
    func aFailedMigrationLeavesTheStoreUsable(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let source = FaultyStorage(try fixture.openLegacy())
        try await source.write(StorageKey(.chats, "old"), "old chat")
        await source.fail([.read, .list], errno: EIO)
        let reported = Mutexed<[MigrationError]>([])
        let prepared = PreparedStorage(try fixture.open(), migratingFrom: source) { error in
            reported.value.append(error)
        }

        try await prepared.write(StorageKey(.chats, "new"), "new chat")
        #expect(try await prepared.read(StorageKey(.chats, "new")) == "new chat")
        #expect(try await prepared.listIds(.chats) == ["new"])
        #expect(reported.value.count == 1)
        #expect(reported.value.first?.failures.first?.errno == EIO)
        #expect(try await fixture.open().read(marker) == nil, "the marker claims a failed copy finished")

        // The pair: the next launch, with the old store readable, carries the chat over.
        await source.heal()
        let nextLaunch = PreparedStorage(try fixture.open(), migratingFrom: source) { error in
            reported.value.append(error)
        }
        #expect(try await nextLaunch.read(StorageKey(.chats, "old")) == "old chat")
        #expect(reported.value.count == 1)
    }

    @Test("an existing install's chats are carried onto the native store", arguments: StoreKind.allCases)
    func anExistingInstallIsCarriedOver(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let legacy = try fixture.openLegacy()
        let clock = SteppingClock()
        let oldChats = ChatRepository(storage: legacy, now: clock.now)
        var originals: [Chat] = []
        for question in ["first chat", "second chat"] {
            let session = try await ChatSession.start(repository: oldChats, now: clock.now)
            await session.record(question: question, answer: "answer to \(question)", engine: "remote")
            originals.insert(await session.chat, at: 0)
        }
        try await legacy.write(SettingsStore.key, #"{"engineId": "remote", "someNumberSetting": 1.5}"#)
        try await legacy.write(StorageKey(.drafts, originals[0].id), "an unanswered question")

        let reported = Mutexed<[MigrationError]>([])
        let native = PreparedStorage(try fixture.open(), migratingFrom: legacy) { reported.value.append($0) }
        guard
            case .ready(let core) = await boot(
                storage: native, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")
        else {
            Issue.record("boot failed")
            return
        }

        #expect(reported.value.isEmpty)
        #expect(try await core.chats.list() == originals)
        #expect(try await core.chats.draft(for: originals[0].id) == "an unanswered question")
        #expect(core.engineId == "remote")
        #expect(core.settings.value("someNumberSetting") == .number(1.5))

        // Exactly once: the next launch finds the marker and reads nothing from the old store.
        let counted = FaultyStorage(legacy)
        let nextLaunch = PreparedStorage(try fixture.open(), migratingFrom: counted) { reported.value.append($0) }
        #expect(try await nextLaunch.listIds(.chats).count == 2)
        #expect(await counted.calls.isEmpty)
    }

    @Test("a store.json written by an older build comes across whole on first launch, exactly once")
    func anOlderBuildsStoreJsonComesAcross() async throws {
        let directory = try TemporaryDirectory()
        // Two chats in the format the repository writes, made in memory, then written into
        // store.json by hand, the way an older build's whole-blob store left them.
        let clock = SteppingClock()
        let scratch = MemoryStorage()
        var originals: [Chat] = []
        for question in ["from the old build", "another old chat"] {
            let session = try await ChatSession.start(repository: ChatRepository(storage: scratch, now: clock.now))
            await session.record(question: question, answer: "kept", engine: "remote")
            originals.insert(await session.chat, at: 0)
        }
        var blob: [String: String] = [
            "keep.settings.settings": #"{"engineId": "remote"}"#,
            "keep.drafts.\(originals[1].id)": "the question left unanswered",
            "another-app.key": "not ours",
        ]
        for chat in originals {
            blob["keep.chats.\(chat.id)"] = try await scratch.read(StorageKey(.chats, chat.id))
        }
        let legacyFile = directory.appending("store.json")
        try JSONSerialization.data(withJSONObject: blob, options: [.sortedKeys]).write(to: URL(filePath: legacyFile))
        let legacyBytes = try Data(contentsOf: URL(filePath: legacyFile))

        let reported = Mutexed<[MigrationError]>([])
        let native = PreparedStorage(
            try FileStore(root: directory.path), migratingFrom: try BlobFileStore(root: directory.path)
        ) { reported.value.append($0) }
        guard
            case .ready(let core) = await boot(
                storage: native, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")
        else {
            Issue.record("boot failed")
            return
        }
        #expect(reported.value.isEmpty)
        let listed = try await core.chats.list()
        let bad = try await core.chats.listUnreadable()
        #expect(listed == originals, "\(listed.map(\.id)) \(originals.map(\.id)) \(bad)")
        #expect(try await core.chats.draft(for: originals[1].id) == "the question left unanswered")
        #expect(core.engineId == "remote")
        // Each chat is now its own file under store/, and store.json is exactly as it was.
        let chatFile = directory.appending("store/chats/\(originals[0].id)")
        #expect(
            FileManager.default.contents(atPath: chatFile).map { String(decoding: $0, as: UTF8.self) }
                == blob["keep.chats.\(originals[0].id)"])
        #expect(try Data(contentsOf: URL(filePath: legacyFile)) == legacyBytes)

        // Exactly once: a later launch reads nothing from store.json, even when it changed.
        let old = FaultyStorage(try BlobFileStore(root: directory.path))
        try await old.write(StorageKey(.chats, "written-by-a-rolled-back-build"), "{}")
        let callsBefore = await old.calls
        let nextLaunch = PreparedStorage(try FileStore(root: directory.path), migratingFrom: old) {
            reported.value.append($0)
        }
        #expect(try await nextLaunch.listIds(.chats).sorted() == originals.map(\.id).sorted())
        #expect(await old.calls == callsBefore)
    }

    @Test("prepared storage runs its migration once, before the first read")
    func preparedStorageRunsOnce() async throws {
        let source = MemoryStorage([StorageKey(.chats, "legacy"): "from the old store"])
        let target = MemoryStorage()
        let runs = Mutexed(0)
        let prepared = PreparedStorage(target) {
            runs.value += 1
            _ = try? await migrateStorage(from: source, to: target)
        }
        #expect(runs.value == 0, "the migration ran before any call")

        let reads = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<10 {
                group.addTask { try await prepared.read(StorageKey(.chats, "legacy")) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reads == Array(repeating: "from the old store", count: 10))
        #expect(runs.value == 1)

        _ = try await prepared.listIds(.drafts)
        try await prepared.write(StorageKey(.drafts, "d"), "x")
        #expect(runs.value == 1)
    }

    @Test("the native store is never offered the legacy store as a fallback")
    func theLegacyStoreIsNeverAFallback() async throws {
        let legacy = FaultyStorage(MemoryStorage([StorageKey(.chats, "only-in-legacy"): "old"]))
        let target = FaultyStorage(MemoryStorage())
        // The copy of this one value fails, so the old store is the only place it is.
        await target.fail([.write], errno: EIO, only: StorageKey(.chats, "only-in-legacy"))
        let prepared = PreparedStorage(target, migratingFrom: legacy) { _ in }

        #expect(try await prepared.read(StorageKey(.chats, "only-in-legacy")) == nil)
        #expect(try await prepared.listIds(.chats) == [])
        let callsAfterMigration = await legacy.calls
        _ = try await prepared.read(StorageKey(.chats, "only-in-legacy"))
        _ = try await prepared.listIds(.chats)
        #expect(await legacy.calls == callsAfterMigration)
        // The pair: the value is still in the old store, for the next launch to copy.
        #expect(try await legacy.read(StorageKey(.chats, "only-in-legacy")) == "old")
    }
}
