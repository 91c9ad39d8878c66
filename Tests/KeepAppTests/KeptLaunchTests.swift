import Foundation
import KeepConformance
import KeepPorts
import KeepSQLite
import KeepSealed
import KeepTestSupport
import Synchronization
import Testing

@testable import KeepApp
@testable import KeepKeptData

@Suite("Kept data at launch: the vault, the owners, the notice")
struct KeptLaunchTests {
    /// Lines `KeptData.open` asked to tell the user.
    final class Told: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var warn: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
    }

    private let server = ScriptedServer(.models(["a", "b"]))

    @Test("with a keyring, kept data is sealed in kept.sqlite under the data root and outlives the run")
    func keptInTheDatabase() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        let keys = MemoryKeyStore(protection: .osKeyring)
        let told = Told()
        let first = try await KeptData.open(root: root, keys: keys, http: server, warn: told.warn)
        #expect(first.status == .kept(path: root + "/kept.sqlite"))
        _ = try await first.engines.refresh(try ServerAddress("http://127.0.0.1:8080/v1"), apiKey: nil)
        try await first.chats.setLastOpenChat("chat-1")

        let second = try await KeptData.open(root: root, keys: keys, http: server, warn: told.warn)
        #expect(
            try await second.engines.kept(try ServerAddress("http://127.0.0.1:8080/v1")).models?.value.ids == [
                "a", "b",
            ])
        #expect(try await second.chats.lastOpenChat() == "chat-1")
        #expect(second.launches.map(\.owner) == ["engines", "chats"])
        #expect(told.all == [])
    }

    @Test("without a secure store nothing is kept, nothing is written, and the owners work in memory for the run")
    func notKeptWithoutASecureStore() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        let kept = try await KeptData.open(root: root, keys: MemoryKeyStore(), http: server, warn: Told().warn)
        #expect(kept.status == .notKept(.noSecureStore(.processMemory)))
        #expect(kept.status.summary.contains("there is no secure store"))
        let fresh = try await kept.engines.refresh(try ServerAddress("http://127.0.0.1:8080/v1"), apiKey: nil)
        #expect(fresh.models?.value.ids == ["a", "b"])
        #expect(!FileManager.default.fileExists(atPath: root), "not even the data root is made")
    }

    @Test("a lost key clears the kept rows, makes a new key and tells the user once")
    func lostKeyIsToldOnce() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        let keys = MemoryKeyStore(protection: .osKeyring)
        let server = try ServerAddress("http://127.0.0.1:8080/v1")
        let before = try await KeptData.open(root: root, keys: keys, http: self.server, warn: Told().warn)
        _ = try await before.engines.refresh(server, apiKey: nil)
        await keys.delete(try KeyName(DataKeyVault.keyName))

        let told = Told()
        let after = try await KeptData.open(root: root, keys: keys, http: self.server, warn: told.warn)
        #expect(after.notice?.reason == .keyMissing)
        #expect(told.all.count == 1)
        #expect(told.all.first?.hasPrefix("Saved data was cleared (3 items)") == true, "\(told.all)")
        #expect(try await after.engines.kept(server).models == nil)
        #expect(after.status == .kept(path: root + "/kept.sqlite"))

        let again = Told()
        let next = try await KeptData.open(root: root, keys: keys, http: self.server, warn: again.warn)
        #expect(next.notice == nil)
        #expect(again.all == [], "told once")
    }

    @Test("a kept-data database that cannot be opened keeps nothing this time, says why, and the owners still work")
    func unusableDatabase() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        try FileManager.default.createDirectory(atPath: root + "/kept.sqlite", withIntermediateDirectories: true)
        let kept = try await KeptData.open(
            root: root, keys: MemoryKeyStore(protection: .osKeyring), http: server, warn: Told().warn)
        guard case .failed(let detail) = kept.status else {
            Issue.record("expected a failed status, got \(kept.status)")
            return
        }
        #expect(detail.contains("kept.sqlite"), "\(detail)")
        #expect(kept.status.summary.hasPrefix("nothing is kept this time: "))
        try await kept.chats.setLastOpenChat("in-memory")
        #expect(try await kept.chats.lastOpenChat() == "in-memory")
    }

    @Test("describing kept data before anything was kept makes no key and no file; once there is some, it is opened")
    func peekMakesNothing() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        let keys = MemoryKeyStore(protection: .osKeyring)
        let peek = try #require(try await KeptData.peek(root: root, keys: keys, http: server, warn: Told().warn))
        #expect(peek.status == .notYet(path: root + "/kept.sqlite"))
        #expect(try await keys.load(try KeyName(DataKeyVault.keyName)) == nil)
        #expect(!FileManager.default.fileExists(atPath: root))

        _ = try await KeptData.open(root: root, keys: keys, http: server, warn: Told().warn)
        #expect(try await KeptData.peek(root: root, keys: keys, http: server, warn: Told().warn) == nil)
        #expect(try await KeptData.peek(root: root, keys: MemoryKeyStore(), http: server, warn: Told().warn) == nil)
    }

    @Test("a preference an owner cannot read at launch is told, and left as it is")
    func launchProblemsAreTold() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        let keys = MemoryKeyStore(protection: .osKeyring)
        let kept = try await KeptData.open(root: root, keys: keys, http: server, warn: Told().warn)
        guard let sealer = kept.engines.seal.sealer as? AESGCMSealer else {
            Issue.record("the engines keeper seals with the vault's sealer")
            return
        }
        let binding = SealBinding(owner: EnginesKeeper.owner, kind: "retention", shapeVersion: 9, subject: nil)
        try await kept.engines.store.keepPreference(
            KeptRecord(
                kind: "retention", subject: nil, shapeVersion: 9, at: KeptInstant(millisecondsSince1970: 1),
                sealed: try sealer.seal(Array("{}".utf8), for: binding)))

        let told = Told()
        let next = try await KeptData.open(root: root, keys: keys, http: server, warn: told.warn)
        #expect(told.all.count == 1)
        #expect(told.all.first?.contains("shape version 9 of retention") == true, "\(told.all)")
        #expect(told.all.first?.hasSuffix("it is left as it is") == true)
        #expect(try await next.engines.store.preference("retention", about: nil)?.shapeVersion == 9)
    }

    @Test(
        "keep whatsnew asks every module with a markers table, and forgetting a server reaches every module with rows about one"
    )
    func everyOwnerIsAsked() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        let kept = try await KeptData.open(
            root: root, keys: MemoryKeyStore(protection: .osKeyring), http: server, warn: Told().warn)
        let database = try SQLiteDatabase(path: root + "/kept.sqlite")
        let tables = try await database.read { transaction throws(SQLiteError) in
            try transaction.query(
                "SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p WHERE m.type = 'table'")
        }
        var marked = Set<String>()
        var aboutServers = Set<String>()
        for row in tables {
            let (table, column) = (try row.text(0), try row.text(1))
            guard !table.hasPrefix("keep_"), let owner = table.split(separator: "_").first.map(String.init) else {
                continue
            }
            if table.hasSuffix("_markers") { marked.insert(owner) }
            if column == "subject" { aboutServers.insert(owner) }
        }
        #expect(marked == ["engines"], "the scan finds the markers tables")
        #expect(marked.isSubset(of: Set(kept.sayWhatIsNew.map(\.owner.name))))
        #expect(aboutServers == ["engines"])
        #expect(aboutServers.isSubset(of: Set(kept.forgetServers.map(\.owner.name))))
    }
}
