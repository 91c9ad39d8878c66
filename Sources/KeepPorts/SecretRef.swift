/// The address of one secret: a slot from the closed set and an account within it.
///
/// Both halves are the key. `openai`/`work` and `openai`/`personal` are two independent
/// secrets: writing, reading or deleting one never touches the other. `"default"` is the
/// account for the single-key case.
public struct SecretRef: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The provider's slot, from the closed set.
    public let slot: SecretSlot
    /// The account within the slot: free text, `"default"` when there is one key.
    public let account: String

    /// The secret of `account` in `slot`.
    public init(_ slot: SecretSlot, account: String = "default") {
        self.slot = slot
        self.account = account
    }

    /// `openai/"work"`: names the secret, never its value.
    public var description: String {
        "\(slot.rawValue)/\(StorageError.quoted(account))"
    }
}
