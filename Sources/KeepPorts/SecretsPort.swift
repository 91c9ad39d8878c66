/// Where an app keeps its credentials: a keychain, never the plain storage port.
///
/// Every adapter promises, and `KeepConformance.SecretsContract` checks:
///
/// - Both halves of a ``SecretRef`` are the key; sibling accounts are independent.
/// - `set` replaces; `""` is a stored value (`has` is true, `get` returns `""`).
/// - `get` of a never-set secret is `nil`; `delete` of an absent one succeeds.
/// - `has` answers without loading the value.
///
/// An adapter that cannot reach its store throws a ``SecretsError``; it never answers
/// `nil` for "unavailable", and never falls back to a file.
public protocol SecretsPort: Sendable {
    /// How the secrets are protected, for the app to show honestly.
    var protection: SecretProtection { get }

    /// Whether a value is stored under `ref`; never loads the value itself.
    func has(_ ref: SecretRef) async throws(SecretsError) -> Bool

    /// The value under `ref`, or `nil` when none was set. For the engine that needs it only.
    func get(_ ref: SecretRef) async throws(SecretsError) -> String?

    /// Stores `value` under `ref`, replacing any earlier value.
    func set(_ ref: SecretRef, _ value: String) async throws(SecretsError)

    /// Removes the value under `ref`; deleting an absent secret succeeds.
    func delete(_ ref: SecretRef) async throws(SecretsError)
}
