import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import KeepTestSupport
import Synchronization
import Testing

@testable import KeepApp
@testable import KeepEngines

@Suite("The composition root")
struct CompositionTests {
    // MARK: - Secrets

    @Test("with no session bus, secrets fall back to process memory seeded from the environment, with the reason")
    func fallbackToProcessMemory() async throws {
        let environment = LaunchEnvironment([
            "HOME": "/nowhere", "OPENAI_API_KEY": "sk-openai", "GEMINI_API_KEY": "gemini-key",
            "OPENROUTER_API_KEY": "", "ANTHROPIC_API_KEY": "sk-ant",
        ])
        let backend = await Platform.secretsFor(environment)
        #expect(backend.protection == .processMemory)
        #expect(backend.keyStore.protection == .processMemory)
        #expect(backend.keyringUnavailable?.code == .noSessionBus)
        #expect(try await backend.secrets.get(SecretRef(.openai)) == "sk-openai")
        #expect(try await backend.secrets.get(SecretRef(.anthropic)) == "sk-ant")
        #expect(
            try await backend.secrets.get(SecretRef(.google)) == "gemini-key", "GEMINI_API_KEY stands in for google")
        #expect(try await backend.secrets.has(SecretRef(.openrouter)) == false, "an empty variable is no key")
        #expect(backend.environmentKeys == ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"])

        let warning = try #require(backend.warning)
        #expect(warning.contains("no keyring answers (connect failed: there is no D-Bus session bus"))
        #expect(warning.contains("gone when keep exits"))
        #expect(warning.contains("OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY"))
        #expect(!warning.contains("sk-openai") && !warning.contains("gemini-key"), "names, never values")
    }

    @Test("GOOGLE_API_KEY wins over GEMINI_API_KEY for the google slot")
    func googleBeforeGemini() async throws {
        let backend = await Platform.secretsFor(
            LaunchEnvironment(["GOOGLE_API_KEY": "google", "GEMINI_API_KEY": "gemini"]))
        #expect(try await backend.secrets.get(SecretRef(.google)) == "google")
        #expect(backend.environmentKeys == ["GOOGLE_API_KEY"])
    }

    @Test("a bus where no Secret Service answers falls back too, with the probe's typed error")
    func busWithoutKeyring() async throws {
        let directory = try TemporaryDirectory()
        let backend = await Platform.secretsFor(
            LaunchEnvironment(["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory.appending("no-bus-here"))"]))
        #expect(backend.protection == .processMemory)
        let reason = try #require(backend.keyringUnavailable)
        #expect([.noSessionBus, .noService].contains(reason.code), "\(reason)")
        #expect(backend.warning?.contains(reason.description) == true)
    }

    @Test(
        "when the Secret Service answers, keys live in it, and nothing is taken from the environment",
        .onTheScriptsKeyring)
    func keyringWhenItAnswers() async throws {
        let address = try ScriptsKeyring.requireBus()
        let account = "composition-\(UUID().uuidString.lowercased())"
        let backend = await Platform.secretsFor(
            LaunchEnvironment(["DBUS_SESSION_BUS_ADDRESS": address, "OPENAI_API_KEY": "sk-environment"]))
        #expect(backend.protection == .osKeyring)
        #expect(backend.keyStore.protection == .osKeyring)
        #expect(backend.keyringUnavailable == nil)
        #expect(backend.environmentKeys.isEmpty)
        #expect(backend.refusalToStore == nil, "a key set here is kept")
        #expect(backend.warning == nil, "all is well, so nothing warns")
        #expect(backend.protectionNote?.contains("not hardware-backed") == true, "the honest word is a note")
        let ref = SecretRef(.custom, account: account)
        try await backend.secrets.set(ref, "kept")
        #expect(try await backend.secrets.get(ref) == "kept")
        try await backend.secrets.delete(ref)
    }

    @Test("keys cannot be stored in process memory: the refusal says why and how to get a keyring")
    func refusalToStore() async throws {
        let backend = await Platform.secretsFor(LaunchEnvironment([:]))
        let refusal = try #require(backend.refusalToStore)
        #expect(refusal.code == .notPersistent)
        #expect(refusal.detail?.contains("gone when this command exits") == true)
        #expect(refusal.detail?.contains("gnome-keyring-daemon --components=secrets --unlock") == true)
        #expect(SecretsBackend(secrets: MemorySecrets(), keyStore: MemoryKeyStore()).refusalToStore != nil)
    }

    @Test("the session bus is DBUS_SESSION_BUS_ADDRESS, else a socket named bus in XDG_RUNTIME_DIR")
    func sessionBusAddress() throws {
        let directory = try TemporaryDirectory()
        #expect(LaunchEnvironment(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]).sessionBusAddress == "unix:path=/x")
        #expect(LaunchEnvironment(["XDG_RUNTIME_DIR": directory.path]).sessionBusAddress == nil)
        try Data().write(to: URL(fileURLWithPath: directory.appending("bus")))
        #expect(
            LaunchEnvironment(["XDG_RUNTIME_DIR": directory.path]).sessionBusAddress == nil, "a plain file is no bus")
        try FileManager.default.removeItem(atPath: directory.appending("bus"))
        let socket = try UnixSocket(at: directory.appending("bus"))
        #expect(
            LaunchEnvironment(["XDG_RUNTIME_DIR": directory.path]).sessionBusAddress
                == "unix:path=\(directory.appending("bus"))")
        withExtendedLifetime(socket) {}
        #expect(LaunchEnvironment(["XDG_RUNTIME_DIR": "relative/dir"]).sessionBusAddress == nil)
    }

    // MARK: - Storage

    @Test("the store is the file store under the data root, after a one-time copy from store.json")
    func storageMigratesFromStoreJSON() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("keep")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let legacy = #"{"keep.chats.c1":"old chat","keep.settings.settings":"{}"}"#
        try Data(legacy.utf8).write(to: URL(fileURLWithPath: "\(root)/store.json"))

        let storage = try Platform.storageFor(root: root) { error in Issue.record("migration failed: \(error)") }
        #expect(try await storage.read(StorageKey(.chats, "c1")) == "old chat")
        #expect(try String(contentsOfFile: "\(root)/store/chats/c1", encoding: .utf8) == "old chat")
        #expect(try String(contentsOfFile: "\(root)/store.json", encoding: .utf8) == legacy, "the source is left alone")

        // The legacy file is only the source of the copy, never a fallback.
        try await storage.remove(StorageKey(.chats, "c1"))
        #expect(try await storage.read(StorageKey(.chats, "c1")) == nil)
        let again = try Platform.storageFor(root: root) { error in Issue.record("migration failed: \(error)") }
        #expect(try await again.read(StorageKey(.chats, "c1")) == nil, "copied once, not again")
    }

    @Test("a store.json that cannot be read is reported, and the file store is used all the same")
    func brokenStoreJSON() async throws {
        let directory = try TemporaryDirectory()
        try Data("{ truncated".utf8).write(to: URL(fileURLWithPath: directory.appending("store.json")))
        let reported = Reported()
        let storage = try Platform.storageFor(root: directory.path) { error in reported.add("\(error)") }
        try await storage.write(StorageKey(.chats, "new"), "written")
        #expect(try await storage.read(StorageKey(.chats, "new")) == "written")
        #expect(reported.lines.count == 1)
        #expect(reported.lines.first?.contains("will be retried at the next launch") == true)
    }

    @Test("boot on a data root that is a file fails with the real detail, for the crash screen")
    func bootFailure() async throws {
        let directory = try TemporaryDirectory()
        try Data().write(to: URL(fileURLWithPath: directory.appending("keep")))
        let composition = Composition(
            environment: LaunchEnvironment(["XDG_DATA_HOME": directory.path])
        ) { _ in }
        guard case .failed(let reason, let detail) = await composition.boot() else {
            Issue.record("booted on a data root that is a file")
            return
        }
        #expect(reason == .storageUnavailable)
        #expect(detail.contains("ENOTDIR"), "\(detail)")
    }

    @Test("boot on a healthy data root is ready on the echo engine, the default: the pair")
    func bootReady() async throws {
        let directory = try TemporaryDirectory()
        let composition = Composition(environment: LaunchEnvironment(["XDG_DATA_HOME": directory.path])) { _ in }
        guard case .ready(let core) = await composition.boot() else {
            Issue.record("a healthy data root did not boot")
            return
        }
        #expect(core.engineId == "echo")
        #expect(try await composition.engine(for: core).id == "echo")
    }

    // MARK: - Engines

    @Test("the engine setting picks the engine; the remote one is set up from the settings")
    func enginesFromSettings() async throws {
        let settings = SettingsStore(storage: MemoryStorage(), secrets: MemorySecrets(), defs: SettingRegistry.defs)
        try await settings.load()
        try await settings.set("baseUrl", .string("http://10.0.0.7:9000/v1"))
        try await settings.set("model", .string("llama"))
        try await settings.set("keySlot", .string("anthropic"))
        let remote = try #require(
            try Platform.engineFor("remote", settings: settings, secrets: MemorySecrets()) as? RemoteEngine)
        #expect(remote.baseURL == "http://10.0.0.7:9000/v1")
        #expect(remote.model == "llama")
        #expect(remote.temperature == 0.7)
        #expect(remote.keyRef == SecretRef(.anthropic))
        #expect(try Platform.engineFor("echo", settings: settings, secrets: MemorySecrets()) is EchoEngine)
        #expect {
            try Platform.engineFor("gpt", settings: settings, secrets: MemorySecrets())
        } throws: { ($0 as? EngineError)?.code == .configuration }
    }
}

/// Lines handed to a reporting closure.
private final class Reported: Sendable {
    private let store = Mutex<[String]>([])
    func add(_ line: String) { store.withLock { $0.append(line) } }
    var lines: [String] { store.withLock { $0 } }
}
