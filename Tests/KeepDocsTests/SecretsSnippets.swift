import KeepPorts
import KeepSecretService

/// The code of the secrets article and of the README's tour, compiled. It talks to the
/// session's own keyring, so no test runs it: the Secret Service tests cover each call.
enum SecretsSnippets {
    /// Stores `apiKey` in the keyring as the `openai` key of the account `work`.
    static func keepAKeyInTheKeyring(_ apiKey: String) async throws -> Bool {
        let secrets = try SecretServiceSecrets()  // the session bus; items named app=keep
        try await secrets.checkAvailable()  // throws why, when keys cannot be kept here
        try await secrets.set(SecretRef(.openai, account: "work"), apiKey)
        let configured = try await secrets.has(SecretRef(.openai, account: "work"))  // never loads the value
        return configured
    }
}
