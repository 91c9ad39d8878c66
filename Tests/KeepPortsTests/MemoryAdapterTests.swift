import Foundation
import KeepConformance
import KeepPorts
import Synchronization
import Testing

@Suite("The in-memory adapters")
struct MemoryAdapterTests {
    @Test("MemoryStorage honours the storage contract", arguments: StorageContract.cases)
    func memoryStorageHonoursTheContract(_ rule: StorageContract.Case) async throws {
        try await rule.check { MemoryStorage() }
    }

    @Test("MemoryStorage honours the append contract", arguments: AppendContract.cases)
    func memoryStorageHonoursTheAppendContract(_ rule: AppendContract.Case) async throws {
        try await rule.check { MemoryStorage() }
    }

    @Test("MemoryStorage tells an append the value's length in bytes, after its unfinished line is cut")
    func memoryStorageOffsets() async throws {
        let storage = MemoryStorage()
        let key = StorageKey(.chats, "c1")
        try await storage.write(key, "héad\nhalf")
        let offsets = Mutexed<[Int]>([])
        for line in ["one", "twö"] {
            _ = try await storage.append(key) { offset in
                offsets.value.append(offset)
                return line
            }
        }
        #expect(offsets.value == [6, 10])
        #expect(try await storage.read(key) == "héad\none\ntwö\n")
    }

    @Test("a MemoryStorage stamp changes with every write and append of its value, and with nothing else")
    func memoryStorageStamps() async throws {
        let storage = MemoryStorage()
        let key = StorageKey(.chats, "c1")
        #expect(try await storage.stamp(key) == nil)
        #expect(await storage.stamps(.chats).isEmpty)
        try await storage.write(key, "one\n")
        try await storage.write(StorageKey(.chats, "c2"), "other")
        let first = try #require(try await storage.stamp(key))
        #expect(first.size == 4 && first.isTrusted)
        _ = try await storage.read(key)
        try await storage.write(StorageKey(.drafts, "c1"), "a draft")
        #expect(try await storage.stamp(key) == first, "a read, or a write of another key, changed the stamp")
        try await storage.write(key, "one\n")
        let rewritten = try #require(try await storage.stamp(key))
        #expect(rewritten.size == first.size && rewritten.changeToken != first.changeToken)
        _ = try await storage.append(key) { _ in "two" }
        let appended = try #require(try await storage.stamp(key))
        #expect(appended.size == 8 && appended.changeToken != rewritten.changeToken)
        #expect(
            await storage.stamps(.chats) == [
                "c1": appended, "c2": try #require(try await storage.stamp(StorageKey(.chats, "c2"))),
            ])
        try await storage.remove(key)
        #expect(try await storage.stamp(key) == nil)
    }

    @Test("MemorySecrets honours the secrets contract", arguments: SecretsContract.cases)
    func memorySecretsHonoursTheContract(_ rule: SecretsContract.Case) async throws {
        try await rule.check { MemorySecrets() }
    }

    @Test("MemorySecrets says its secrets live in process memory only")
    func memorySecretsIsHonestAboutProtection() {
        let secrets = MemorySecrets()
        #expect(secrets.protection == .processMemory)
        #expect(!secrets.protection.isHardwareBacked)
        #expect(!secrets.protection.persists)
    }

    @Test("MemorySecrets can be seeded, for keys handed over by the environment")
    func memorySecretsSeed() async {
        let ref = SecretRef(.openai)
        let secrets = MemorySecrets([ref: "sk-seeded"])
        #expect(await secrets.get(ref) == "sk-seeded")
        #expect(await secrets.has(SecretRef(.openai, account: "work")) == false)
    }
}

@Suite("The port types")
struct PortTypeTests {
    @Test("an unknown namespace is refused by name", arguments: ["secrets", "Chats", "chats ", "", "../chats"])
    func unknownNamespaceIsRefused(_ name: String) {
        #expect(throws: StorageError.self) { try Namespace.parse(name) }
        do {
            _ = try Namespace.parse(name)
        } catch {
            #expect(error.code == .unknownNamespace)
            #expect(error.description.contains(StorageError.quoted(name)))
        }
    }

    @Test("every namespace of the closed set parses to itself")
    func knownNamespacesParse() throws {
        for namespace in Namespace.allCases {
            #expect(try Namespace.parse(namespace.rawValue) == namespace)
        }
    }

    @Test(
        "a slot outside the closed set is refused rather than named", arguments: ["aws", "OpenAI", "", "openai\u{0}"])
    func unknownSlotIsRefused(_ name: String) {
        do {
            _ = try SecretSlot.parse(name)
            Issue.record("\(name) was accepted as a slot")
        } catch {
            #expect(error.code == .invalidRef)
        }
    }

    @Test(
        "errno is mapped once: a refused disk is unavailable, a full one is full",
        arguments: [
            (EACCES, StorageError.Code.unavailable), (EPERM, .unavailable), (EROFS, .unavailable),
            (ENOSPC, .full), (EDQUOT, .full), (EIO, .io), (ENOENT, .io),
        ])
    func errnoMapping(_ errno: Int32, _ code: StorageError.Code) {
        #expect(StorageError.Code(errno: errno) == code)
        #expect(StorageError.system("fsync", path: "/x", errno: errno).code == code)
    }

    @Test("a storage error names the operation, the path and the errno")
    func storageErrorDescription() {
        let error = StorageError.system("fsync", path: "/data/store/chats/c1", errno: ENOSPC)
        #expect(error.description.hasPrefix("fsync of /data/store/chats/c1 failed: "))
        #expect(error.description.contains("(ENOSPC)"))
    }

    @Test("an error shows any id on one quoted line")
    func quotedIds() {
        #expect(StorageError.quoted("a\nb\"c") == #""a\nb\"c""#)
        #expect(StorageError.quoted("\u{1}") == #""\u{1}""#)
        #expect(StorageError.quoted(String(repeating: "x", count: 300)).hasSuffix("…(300 bytes)\""))
    }

    @Test("a secrets error names the ref and never a value")
    func secretsErrorDescription() {
        let error = SecretsError(code: .locked, operation: "get", ref: SecretRef(.openai, account: "work"))
        #expect(error.description.hasPrefix(#"get of openai/"work" failed: "#))
        #expect(error.description.contains("locked"))
    }

    @Test("only hardware protection is hardware-backed")
    func protection() {
        #expect(SecretProtection.allCases.filter(\.isHardwareBacked) == [.hardware])
        #expect(SecretProtection.osKeyring.persists)
    }
}

/// A value a test's closures can share.
private final class Mutexed<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}
