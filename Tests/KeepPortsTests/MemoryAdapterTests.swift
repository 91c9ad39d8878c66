import Foundation
import KeepConformance
import KeepPorts
import Testing

@Suite("The in-memory adapters")
struct MemoryAdapterTests {
    @Test("MemoryStorage honours the storage contract", arguments: StorageContract.cases)
    func memoryStorageHonoursTheContract(_ rule: StorageContract.Case) async throws {
        try await rule.check { MemoryStorage() }
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
