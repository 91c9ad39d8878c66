import KeepConformance
import KeepCore
import KeepPorts
import Testing

@testable import KeepApp

@Suite("The setting registry")
struct SettingRegistryTests {
    private let defs = SettingRegistry.defs

    @Test("every setting's default satisfies its own validator")
    func everyDefaultIsValid() throws {
        let validated = defs.filter { $0.validator != nil }
        #expect(validated.count >= 6, "the guard runs over the registry, not one key")
        for def in validated {
            #expect(def.validator?.validate(def.defaultValue) == def.defaultValue, "\(def.key)")
        }
        for def in defs where !def.isSecret {
            #expect(try def.accept(def.defaultValue) == def.defaultValue, "\(def.key)")
        }
    }

    @Test("the registry has every setting keep needs, each key once")
    func theRegistryHasItsSettings() {
        #expect(
            defs.map(\.key) == [
                "engineId", "baseUrl", "model", "temperature", "system", "maxTokens", "keySlot", "keyAccount",
                "openaiApiKey", "keyOverHttpHosts", "answerLimitMiB", "answerTimeoutSeconds", "chatHistory",
            ])
        #expect(Set(defs.map(\.key)).count == defs.count)
        for def in defs {
            #expect(!def.label.isEmpty && !def.help.isEmpty && !def.section.isEmpty, "\(def.key)")
        }
        #expect(SettingRegistry.engineId.defaultValue == .string("echo"))
        #expect(SettingRegistry.temperature.defaultValue == .number(0.7))
        #expect(SettingRegistry.keySlot.defaultValue == .string("openai"))
        #expect(SettingRegistry.keyAccount.defaultValue == .string("default"))
    }

    @Test(
        "each setting accepts what its rule allows",
        arguments: [
            ("engineId", SettingValue.string("echo")), ("engineId", .string("remote")),
            ("baseUrl", .string("http://127.0.0.1:8080/v1")), ("baseUrl", .string("https://api.openai.com/v1")),
            ("baseUrl", .string("HTTPS://example.com")), ("model", .string("gpt-4o-mini")),
            ("temperature", .number(0)), ("temperature", .number(2)), ("temperature", .string("1.2")),
            ("keySlot", .string("anthropic")), ("keySlot", .string("custom")), ("keyAccount", .string("work")),
        ])
    func acceptsWhatItsRuleAllows(key: String, value: SettingValue) throws {
        let def = try #require(defs.first { $0.key == key })
        #expect(throws: Never.self) { try def.accept(value) }
    }

    @Test(
        "each setting refuses what its rule does not allow",
        arguments: [
            ("engineId", SettingValue.string("gpt")), ("engineId", .string("ECHO")), ("engineId", .number(1)),
            ("baseUrl", .string("ftp://example.com")), ("baseUrl", .string("example.com")),
            ("baseUrl", .string("http:// spaced.example")), ("baseUrl", .string("https://")), ("model", .string("   ")),
            ("model", .bool(true)), ("temperature", .number(-0.01)), ("temperature", .number(2.01)),
            ("temperature", .string("warm")), ("keySlot", .string("aws")), ("keySlot", .string("OpenAI")),
            ("keyAccount", .string(" ")),
        ])
    func refusesWhatItsRuleForbids(key: String, value: SettingValue) throws {
        let def = try #require(defs.first { $0.key == key })
        #expect(throws: SettingsError.refused(key: key, reason: "\(key) must be \(def.rule)")) {
            try def.accept(value)
        }
    }

    @Test("the OpenAI API key is a secret with no value row, ever")
    func theApiKeyIsASecret() async throws {
        let def = SettingRegistry.openaiApiKey
        #expect(def.isSecret)
        #expect(def.secretRef == SecretRef(.openai, account: "default"))

        let storage = MemoryStorage()
        let secrets = MemorySecrets()
        let settings = SettingsStore(storage: storage, secrets: secrets, defs: defs)
        try await settings.load()
        await #expect(throws: SettingsError.secretKey("openaiApiKey")) {
            try await settings.set("openaiApiKey", .string("sk-must-not-land"))
        }
        try await settings.setSecret("openaiApiKey", "sk-must-not-land")
        try await settings.set("model", .string("gpt-4o-mini"))

        let file = try #require(try await storage.read(SettingsStore.key))
        #expect(file.contains("gpt-4o-mini"), "the scan reads the file it checks")
        #expect(!file.contains("openaiApiKey"))
        #expect(!file.contains("sk-must-not-land"))
        #expect(settings.value("openaiApiKey") == nil)
        #expect(await secrets.get(SecretRef(.openai)) == "sk-must-not-land")
    }

    @Test("apiKeyFor reads the key the keySlot and keyAccount settings name, and an empty key is none")
    func apiKeyForFollowsTheSettings() async throws {
        let secrets = MemorySecrets()
        let settings = SettingsStore(storage: MemoryStorage(), secrets: secrets, defs: defs)
        try await settings.load()
        #expect(try await SettingRegistry.apiKeyFor(secrets: secrets, settings: settings) == nil)

        try await settings.setSecret("openaiApiKey", "")
        #expect(try await SettingRegistry.apiKeyFor(secrets: secrets, settings: settings) == nil)
        try await settings.setSecret("openaiApiKey", "sk-openai")
        #expect(try await SettingRegistry.apiKeyFor(secrets: secrets, settings: settings) == "sk-openai")

        await secrets.set(SecretRef(.anthropic, account: "work"), "sk-work")
        try await settings.set("keySlot", .string("anthropic"))
        try await settings.set("keyAccount", .string("work"))
        #expect(try SettingRegistry.apiKeyRef(settings) == SecretRef(.anthropic, account: "work"))
        #expect(try await SettingRegistry.apiKeyFor(secrets: secrets, settings: settings) == "sk-work")
        #expect(
            try await readSecretSetting(secrets: secrets, defs: defs, key: "openaiApiKey") == "sk-openai",
            "the openai key is still where it was")
    }

    @Test("apiKeyFor reports a keychain it cannot reach, never an absent key")
    func apiKeyForReportsAnUnreachableKeychain() async throws {
        let secrets = BrokenKeychain()
        let settings = SettingsStore(storage: MemoryStorage(), secrets: secrets, defs: defs)
        try await settings.load()
        await #expect(throws: SettingsError.secrets(BrokenKeychain.error)) {
            try await SettingRegistry.apiKeyFor(secrets: secrets, settings: settings)
        }
    }
}

/// A keychain with no Secret Service behind it.
private struct BrokenKeychain: SecretsPort {
    static let error = SecretsError(code: .noService, operation: "get", ref: SecretRef(.openai))
    var protection: SecretProtection { .osKeyring }
    func has(_ ref: SecretRef) throws(SecretsError) -> Bool { throw Self.error }
    func get(_ ref: SecretRef) throws(SecretsError) -> String? { throw Self.error }
    func set(_ ref: SecretRef, _ value: String) throws(SecretsError) { throw Self.error }
    func delete(_ ref: SecretRef) throws(SecretsError) { throw Self.error }
}
