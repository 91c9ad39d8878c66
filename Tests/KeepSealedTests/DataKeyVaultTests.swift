import Foundation
import KeepConformance
import KeepPorts
import KeepSQLite
import KeepTestSupport
import Synchronization
import Testing

@testable import KeepSealed

@Suite("The data-key vault")
struct DataKeyVaultTests {
    /// A vault on a fresh keyring and database, with the demo owner's table in place.
    struct Fixture {
        let directory: TemporaryDirectory
        let keyring = KeyringDouble()
        var path: String { directory.appending("kept.sqlite") }
        var vault: DataKeyVault { DataKeyVault(keys: keyring, sealing: AESGCMSealing(), databasePath: path) }

        init() throws {
            directory = try TemporaryDirectory()
        }

        func store() async throws -> DemoOwner.Store {
            let database = try SQLiteDatabase(path: path)
            try await database.migrate(DemoOwner.schema)
            return DemoOwner.Store(database: database)
        }

        func sealer() async throws -> any SealingPort {
            let state = try await vault.open()
            guard let sealer = state.sealer else { throw VaultTestFailure("the vault kept nothing: \(state)") }
            return sealer
        }

        func notice() async throws -> KeyLossNotice? {
            guard case .kept(_, let notice) = try await vault.open() else { throw VaultTestFailure("nothing kept") }
            return notice
        }

        /// Seals `count` readings about one server into the demo table.
        func keepReadings(_ count: Int, with sealer: any SealingPort) async throws {
            let store = try await store()
            let subject = try sealer.subjectHash("https://models.example.test/v1")
            let binding = SealBinding(owner: DemoOwner.owner, kind: "models", shapeVersion: 1, subject: subject)
            for index in 0..<count {
                let sealed = try sealer.seal(Array("reading \(index)".utf8), for: binding)
                try await store.keep(sealed, kind: "models", subject: subject, version: 1)
            }
        }
    }

    struct VaultTestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("first use makes a 32-byte key and keeps it in the key store, never in a file")
    func firstUseMakesAKey() async throws {
        let fixture = try Fixture()
        let sealer = try await fixture.sealer()
        let key = try #require(try await fixture.keyring.dataKey())
        #expect(key.count == 32)
        #expect(await fixture.keyring.storeCount == 1)
        try await fixture.keepReadings(3, with: sealer)

        // The scan would see the key in a file: a planted copy is found.
        let planted = fixture.directory.appending("planted")
        try Data(key).write(to: URL(fileURLWithPath: planted))
        #expect(try await RawFileScan.files(in: fixture.directory.path, containing: key) == [planted])
        try FileManager.default.removeItem(atPath: planted)
        // And no file holds it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).contains("kept.sqlite"))
        #expect(try await RawFileScan.files(in: fixture.directory.path, containing: key) == [])
    }

    @Test("a second launch loads the same key: what one launch sealed, the next opens")
    func secondLaunchLoadsTheSameKey() async throws {
        let fixture = try Fixture()
        let first = try await fixture.sealer()
        let binding = SealBinding(owner: DemoOwner.owner, kind: "models", shapeVersion: 1, subject: nil)
        let sealed = try first.seal(Array("kept between launches".utf8), for: binding)
        let second = try await fixture.sealer()
        #expect(try second.open(sealed, for: binding) == Array("kept between launches".utf8))
        #expect(await fixture.keyring.storeCount == 1)
        #expect(try await fixture.notice() == nil)
    }

    @Test("no secure store means nothing is kept, and the vault says so without touching the disk")
    func noSecureStoreKeepsNothing() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let memory = MemoryKeyStore()
        let state = try await DataKeyVault(keys: memory, sealing: AESGCMSealing(), databasePath: path).open()
        guard case .notKept(let reason) = state, reason == .noSecureStore(.processMemory) else {
            Issue.record("a process-memory key store was used as if secure: \(state)")
            return
        }
        #expect(state.sealer == nil)
        #expect(await memory.load(try KeyName(DataKeyVault.keyName)) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(String(describing: NotKeptReason.noSecureStore(.processMemory)).contains("nothing is kept"))
        // The pair: a key store that persists is used.
        #expect(
            try await DataKeyVault(keys: KeyringDouble(), sealing: AESGCMSealing(), databasePath: path).open().sealer
                != nil)
    }

    @Test("a key store that cannot be reached keeps nothing this launch and leaves kept data as it was")
    func unreachableKeyStoreKeepsNothing() async throws {
        let fixture = try Fixture()
        let sealer = try await fixture.sealer()
        try await fixture.keepReadings(3, with: sealer)
        let locked = SecretsError(code: .locked, operation: "load")
        await fixture.keyring.failLoads(locked)
        #expect(try await fixture.vault.open().sealer == nil)
        guard case .notKept(let reason) = try await fixture.vault.open(), let error = reason.keyStoreError else {
            Issue.record("a locked key store was not reported")
            return
        }
        #expect(error == locked)
        #expect(try await fixture.store().count() == 3)
        // Unlocked again: the same key, the same rows, no notice.
        await fixture.keyring.failLoads(nil)
        let again = try await fixture.sealer()
        let row = try #require(try await fixture.store().all().first)
        let binding = SealBinding(
            owner: DemoOwner.owner, kind: row.kind, shapeVersion: row.version, subject: row.subject)
        #expect(try again.open(row.sealed, for: binding) == Array("reading 0".utf8))
        #expect(try await fixture.notice() == nil)
    }

    @Test("a lost key deletes the unreadable rows, makes a new key, and the user is told once")
    func lostKeyIsReplacedAndToldOnce() async throws {
        let fixture = try Fixture()
        try await fixture.keepReadings(5, with: try await fixture.sealer())
        let old = try #require(try await fixture.keyring.dataKey())
        await fixture.keyring.reset()

        let notice = try await fixture.notice()
        #expect(notice == KeyLossNotice(reason: .keyMissing, rowsCleared: 5))
        #expect(try await fixture.store().count() == 0)
        let new = try #require(try await fixture.keyring.dataKey())
        #expect(new.count == 32 && new != old)
        // The tables and their migrations stay: the owner keeps working at once.
        #expect(try await fixture.store().all() == [])
        try await fixture.keepReadings(1, with: try await fixture.sealer())
        #expect(try await fixture.store().count() == 1)

        // Told until shown (a launch that crashed before showing it tells again) ...
        #expect(try await fixture.notice() == notice)
        try await fixture.vault.acknowledgeNotice()
        // ... and never after.
        #expect(try await fixture.notice() == nil)
        #expect(try await fixture.notice() == nil)
        #expect(try await fixture.store().count() == 1)
    }

    @Test("a key of the wrong length is unreadable: the rows go and a new key is made", arguments: [1, 16, 31, 33, 64])
    func malformedKeyIsReplaced(_ length: Int) async throws {
        let fixture = try Fixture()
        try await fixture.keepReadings(2, with: try await fixture.sealer())
        try await fixture.keyring.plantDataKey(Array(repeating: 0x5a, count: length))
        #expect(try await fixture.notice() == KeyLossNotice(reason: .keyUnreadable, rowsCleared: 2))
        #expect(try await fixture.keyring.dataKey()?.count == 32)
        #expect(try await fixture.store().count() == 0)
    }

    @Test("a key that is not the one the rows were sealed under clears them, and the new key is kept")
    func foreignKeyClearsRows() async throws {
        let fixture = try Fixture()
        try await fixture.keepReadings(2, with: try await fixture.sealer())
        let foreign = Array(UInt8(1)...32)
        try await fixture.keyring.plantDataKey(foreign)
        #expect(try await fixture.notice() == KeyLossNotice(reason: .keyChanged, rowsCleared: 2))
        #expect(try await fixture.keyring.dataKey() == foreign)
        #expect(try await fixture.store().count() == 0)
    }

    @Test("a lost key with nothing kept makes a new key and owes no notice")
    func lostKeyWithNoRowsTellsNothing() async throws {
        let fixture = try Fixture()
        _ = try await fixture.sealer()
        _ = try await fixture.store()
        await fixture.keyring.reset()
        #expect(try await fixture.notice() == nil)
        #expect(try await fixture.keyring.dataKey()?.count == 32)
    }

    @Test("a new key that cannot be stored changes nothing: the rows wait for the next launch")
    func failedStoreChangesNothing() async throws {
        let fixture = try Fixture()
        try await fixture.keepReadings(2, with: try await fixture.sealer())
        await fixture.keyring.reset()
        await fixture.keyring.failStores(SecretsError(code: .locked, operation: "store"))
        guard case .notKept(let reason) = try await fixture.vault.open(), reason.code == .keyStoreUnavailable else {
            Issue.record("a key that could not be stored was used")
            return
        }
        #expect(try await fixture.store().count() == 2)
        // The next launch can store it: then the rows go, and the user is told.
        await fixture.keyring.failStores(nil)
        #expect(try await fixture.notice() == KeyLossNotice(reason: .keyMissing, rowsCleared: 2))
    }

    @Test("launches opening the vault at the same moment agree on one key")
    func concurrentLaunchesAgreeOnOneKey() async throws {
        let fixture = try Fixture()
        let vault = fixture.vault
        let sealers = try await withThrowingTaskGroup(of: (any SealingPort)?.self) { group in
            for _ in 0..<4 { group.addTask { try await vault.open().sealer } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await fixture.keyring.storeCount == 1)
        let binding = SealBinding(owner: DemoOwner.owner, kind: "models", shapeVersion: 1, subject: nil)
        let all = sealers.compactMap { $0 }
        #expect(all.count == 4)
        for sealer in all {
            let sealed = try sealer.seal([1, 2, 3], for: binding)
            for other in all { #expect(try other.open(sealed, for: binding) == [1, 2, 3]) }
        }
    }

    @Test("the vault holds no database transaction while it waits on the keyring")
    func noTransactionAcrossKeyringCalls() async throws {
        let fixture = try Fixture()
        try await fixture.keepReadings(2, with: try await fixture.sealer())
        // A lost key: the vault loads, makes a key, stores it, and clears the rows.
        await fixture.keyring.reset()
        let impatient = try SQLiteDatabase(path: fixture.path, busyTimeout: .zero)
        let probes = ProbeLog()
        await fixture.keyring.whileAsked {
            // Another writer that will not wait: it fails with SQLITE_BUSY if the vault
            // holds the write lock across this call.
            do {
                try await impatient.write { transaction throws(SQLiteError) in
                    try transaction.execute("CREATE TABLE IF NOT EXISTS demo_probe (v)")
                }
                probes.record(nil)
            } catch {
                probes.record(
                    error as? SQLiteError
                        ?? SQLiteError(operation: "probe", path: nil, extendedCode: 1, message: "\(error)"))
            }
        }
        #expect(try await fixture.notice() == KeyLossNotice(reason: .keyMissing, rowsCleared: 2))
        #expect(probes.outcomes.count == 2, "the keyring was asked twice: load, then store")
        #expect(probes.outcomes.allSatisfy { $0 == nil }, "\(probes.outcomes)")
    }

    @Test(
        "the notice says what happened and holds nothing secret",
        arguments: [KeyLossNotice.Reason.keyMissing, .keyUnreadable, .keyChanged])
    func noticeWords(_ reason: KeyLossNotice.Reason) {
        let text = KeyLossNotice(reason: reason, rowsCleared: 12).description
        #expect(text.contains("12 items"))
        #expect(text.contains("cleared"))
    }
}

/// What each probe of the database, made while the keyring was being asked, answered.
private final class ProbeLog: Sendable {
    private let log = Mutex<[SQLiteError?]>([])
    var outcomes: [SQLiteError?] { log.withLock { $0 } }
    func record(_ outcome: SQLiteError?) { log.withLock { $0.append(outcome) } }
}
