import KeepApp
import KeepCore
import KeepPorts

/// The code of the settings article, compiled, and run by the tests on memory adapters.
enum SettingsSnippets {
    /// Two definitions of one's own: a plain setting with a rule, and a secret.
    static func definitions() -> [SettingDef] {
        let engine = SettingDef(
            key: "engineId", defaultValue: .string("echo"), label: "Engine",
            help: "Which engine answers.", section: "Engine", validator: .oneOf(["echo", "remote"]))
        let apiKey = SettingDef(
            key: "openaiApiKey", defaultValue: .string(""), label: "OpenAI API key",
            help: "Stored in the keychain, never in the file.", section: "Keys",
            secretRef: SecretRef(.openai))
        return [engine, apiKey]
    }

    /// Chooses the remote engine in `keep`'s settings over `storage` and `secrets`, and
    /// answers the engine then in use.
    static func chooseAnEngine(_ storage: any StoragePort, _ secrets: any SecretsPort) async throws -> String {
        let settings = SettingsStore(storage: storage, secrets: secrets, defs: SettingRegistry.defs)
        try await settings.load()
        try await settings.set("engineId", .string("remote"))  // written first, then used
        let engine = settings.chosenStringOr("engineId", "echo")  // "remote": a deliberate choice
        return engine
    }
}
