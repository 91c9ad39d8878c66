/// The closed set of keychain slots a secret can live in.
///
/// A slot names a provider; the account within it is free text. Nothing outside this
/// set can ever name a keychain item: anything that turns a string into a slot goes
/// through ``SecretSlot/parse(_:)``, and adapters check the raw value again at their own
/// boundary.
public enum SecretSlot: String, CaseIterable, Sendable, Codable {
    /// OpenAI's keys (`OPENAI_API_KEY`).
    case openai
    /// Anthropic's keys (`ANTHROPIC_API_KEY`).
    case anthropic
    /// Google's keys (`GOOGLE_API_KEY`, `GEMINI_API_KEY`).
    case google
    /// OpenRouter's keys (`OPENROUTER_API_KEY`).
    case openrouter
    /// A key for any other server, such as a self-hosted one.
    case custom

    /// The slot called `name`, or a typed ``SecretsError/Code/invalidRef`` error.
    public static func parse(_ name: String) throws(SecretsError) -> SecretSlot {
        guard let slot = SecretSlot(rawValue: name) else {
            throw SecretsError(
                code: .invalidRef, operation: "slot",
                detail:
                    "\(StorageError.quoted(name)) is not a slot; the slots are \(allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return slot
    }
}
