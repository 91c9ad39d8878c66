import KeepConformance
import KeepCore
import KeepPorts
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("When storage is unavailable")
struct BootTests {
    @Test(
        "a storage failure at boot is a typed boot result",
        arguments: StoreKind.allCases, [(ENOTDIR, "ENOTDIR"), (ENOSPC, "ENOSPC"), (EIO, "EIO")])
    func aStorageFailureAtBootIsTyped(kind: StoreKind, fault: (errno: Int32, name: String)) async throws {
        // The fixture owns the test's directory: it must live as long as the store.
        let fixture = try kind.fixture()
        let storage = FaultyStorage(try fixture.open())
        await storage.fail([.read, .write, .list], errno: fault.errno)

        let result = await boot(
            storage: storage, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")

        guard case .failed(let reason, let detail) = result else {
            Issue.record("boot succeeded on a store that cannot be read")
            return
        }
        #expect(reason == .storageUnavailable)
        #expect(reason.description == "storage_unavailable")
        #expect(detail.contains(fault.name), "\(detail)")
        #expect(detail.contains(SettingsStore.key.description), "\(detail)")

        // The pair: the same store, reachable again, boots.
        await storage.heal()
        let healed = await boot(
            storage: storage, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")
        guard case .ready = healed else {
            Issue.record("boot failed on a healthy store: \(healed)")
            return
        }
    }

    @Test(
        "a storage failure while the chat list loads stays local",
        arguments: StoreKind.allCases, [FaultyStorage.Operation.list, .read])
    func aListFailureStaysLocal(kind: StoreKind, failing: FaultyStorage.Operation) async throws {
        // The fixture owns the test's directory: it must live as long as the store.
        let fixture = try kind.fixture()
        let storage = FaultyStorage(try fixture.open())
        guard
            case .ready(let core) = await boot(
                storage: storage, secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo")
        else {
            Issue.record("boot failed")
            return
        }
        let session = try await ChatSession.start(repository: core.chats)
        await session.record(question: "open chat", answer: "still here", engine: core.engineId)
        let open = await session.chat

        // EIO: the store's failure. (EACCES on a read is that one file's: see ChatDamageTests.)
        await storage.fail([failing], errno: failing == .list ? EACCES : EIO)
        do {
            _ = try await core.chats.scan()
            Issue.record("the list loaded from a store that refuses listing")
        } catch {
            guard let storageError = error.storage else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(storageError.code == (failing == .list ? .unavailable : .io))
        }
        await #expect(throws: ChatError.self) { try await core.chats.list() }

        // The open chat is untouched, and goes on working while the list cannot load.
        #expect(await session.chat == open)
        #expect(await session.record(question: "next", answer: "fine", engine: core.engineId) != nil)
        #expect(core.settings.value("engineId") == .string("echo"))

        await storage.heal()
        #expect(try await core.chats.list().map(\.messages.count) == [4])
    }

    @Test("the chosen engine is honoured on the next launch", arguments: StoreKind.allCases)
    func theChosenEngineIsHonoured(kind: StoreKind) async throws {
        let fixture = try kind.fixture()
        let first = try Self.ready(
            await boot(
                storage: try fixture.open(), secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo"))
        #expect(first.engineId == "echo")
        try await first.settings.set(AppCore.engineKey, .string("remote"))

        let second = try Self.ready(
            await boot(
                storage: try fixture.open(), secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo"))
        #expect(second.engineId == "remote")

        // The pair: a blank choice is no choice, and the composition root's engine stands.
        try await second.settings.set(AppCore.engineKey, .string(""))
        let third = try Self.ready(
            await boot(
                storage: try fixture.open(), secrets: MemorySecrets(), defs: TestSettings.defs, defaultEngine: "echo"))
        #expect(third.engineId == "echo")
    }

    private static func ready(_ result: BootResult) throws -> AppCore {
        guard case .ready(let core) = result else { throw BootFailed(result: "\(result)") }
        return core
    }

    private struct BootFailed: Error {
        let result: String
    }
}
