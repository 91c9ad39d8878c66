import Foundation
import KeepConformance
import KeepCore
import KeepPorts
import Testing

@testable import KeepApp
@testable import KeepEngines
@testable import KeepReports

@Suite("The engine table")
struct EngineCatalogTests {
    @Test("the engineId setting's allowed values, default and help come from the engine table")
    func settingComesFromTheTable() throws {
        let def = SettingRegistry.engineId
        #expect(def.defaultValue == .string(EngineCatalog.defaultKind.id))
        #expect(EngineCatalog.all.count >= 2, "the check runs over the table, not one engine")
        for kind in EngineCatalog.all {
            #expect(try def.accept(.string(kind.id)) == .string(kind.id), "\(kind.id)")
            #expect(def.help.contains("\(kind.id) (\(kind.summary))"), "\(kind.id)")
            #expect(def.rule.contains(kind.id), "\(kind.id)")
        }
        // The pair: an id the table does not have is refused.
        #expect(throws: SettingsError.self) { try def.accept(.string("not-in-the-table")) }
        #expect(Composition.defaultEngine == EngineCatalog.defaultKind.id)
    }

    @Test("each engine id in the table is there once, and the table finds it by id")
    func idsAreUnique() {
        let ids = EngineCatalog.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        for id in ids { #expect(EngineCatalog.kind(id)?.id == id) }
        #expect(EngineCatalog.kind("ECHO") == nil)
    }

    @Test("every engine in the table is built from the default settings, with its own id", arguments: EngineCatalog.all)
    func everyEngineIsBuilt(kind: EngineKind) async throws {
        let settings = SettingsStore(storage: MemoryStorage(), secrets: MemorySecrets(), defs: SettingRegistry.defs)
        try await settings.load()
        let engine = try Platform.engineFor(kind.id, settings: settings, secrets: MemorySecrets())
        #expect(engine.id == kind.id)
    }

    @Test("every engine in the table is checked by doctor for what it needs", arguments: EngineCatalog.all)
    func everyEngineIsChecked(kind: EngineKind) async throws {
        let directory = try TemporaryDirectory()
        // No session bus: the keychain is process memory, with no key in it.
        let composition = Composition(environment: LaunchEnvironment(["XDG_DATA_HOME": directory.path])) { _ in }
        guard case .ready(let core) = await composition.boot() else {
            Issue.record("a healthy data root did not boot")
            return
        }
        try await core.settings.set(AppCore.engineKey, .string(kind.id))
        let checked = AppCore(settings: core.settings, chats: core.chats, engineId: kind.id)
        let check = await Doctor.engineCheck(checked, composition)
        #expect(check.name == "engine")
        #expect(check.detail.hasPrefix(kind.id), "\(check.detail)")
        if kind.needs.contains(.server) {
            // The default server is on this machine: the missing key is a note, never all-clear in silence.
            #expect(check.detail.contains("127.0.0.1"), "\(check.detail)")
        } else {
            #expect(check.status == .ok, "\(check.detail)")
        }
        #expect(await KeyringChecks.needsKey(checked) == false, "the default server is on this machine")
        // The pair: an engine that needs a key needs one for a server elsewhere (a TEST-NET
        // address: numeric, so no resolver is asked).
        try await core.settings.set(SettingRegistry.baseUrl.key, .string("https://192.0.2.1/v1"))
        #expect(await KeyringChecks.needsKey(checked) == kind.needs.contains(.key))
    }

    @Test("doctor names an engine the table does not have as a problem")
    func unknownEngineIsAProblem() async throws {
        let directory = try TemporaryDirectory()
        let composition = Composition(environment: LaunchEnvironment(["XDG_DATA_HOME": directory.path])) { _ in }
        guard case .ready(let core) = await composition.boot() else {
            Issue.record("a healthy data root did not boot")
            return
        }
        let check = await Doctor.engineCheck(
            AppCore(settings: core.settings, chats: core.chats, engineId: "gpt"), composition)
        #expect(check.status == .problem)
        #expect(check.detail.contains("\"gpt\""))
    }
}

extension EngineKind: CustomTestStringConvertible {
    public var testDescription: String { id }
}
