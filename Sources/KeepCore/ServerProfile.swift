import KeepPorts

/// One server `keep` can ask, as `keep servers add` records it: a name, its base URL, the
/// protocol it speaks, the keychain ref of its key (never the key), the model asked when a
/// question names none, an authority file to verify it against, and a context budget.
public struct ServerProfile: Sendable, Equatable {
    /// The name the user calls it by: `default`, `local`, `claude`.
    public let name: String
    /// Its base URL (``ServerURLRule``): `http://127.0.0.1:8080/v1`.
    public var url: String
    /// The wire format it speaks.
    public var wire: ServerProtocol
    /// Where its key is read from: a slot and an account, never the key.
    public var key: SecretRef
    /// The model asked when a question names none.
    public var model: String
    /// The PEM file of the private authority its certificate is verified against, alone;
    /// `nil` for the system's authorities.
    public var authority: String?
    /// How many tokens a request may carry (the model's context window); `nil` sends the
    /// whole conversation.
    public var contextTokens: Int?

    /// The server `name` at `url`, speaking `wire`, its key at `key` (the protocol's default
    /// slot, account `default`, when not given).
    public init(
        name: String, url: String, wire: ServerProtocol = .openai, key: SecretRef? = nil, model: String = "default",
        authority: String? = nil, contextTokens: Int? = nil
    ) {
        self.name = name
        self.url = url
        self.wire = wire
        self.key = key ?? SecretRef(wire.defaultSlot)
        self.model = model
        self.authority = authority
        self.contextTokens = contextTokens
    }

    /// The largest ``contextTokens`` accepted.
    public static let contextTokensLimit = 100_000_000

    /// The key ref as `keep servers add --key` takes it and the file keeps it:
    /// `anthropic` for the default account, else `anthropic/work`.
    public var keyText: String {
        key.account == "default" ? key.slot.rawValue : "\(key.slot.rawValue)/\(key.account)"
    }

    /// The ref `text` names (`SLOT` or `SLOT/ACCOUNT`), or why it names none.
    public static func key(parsing text: String) -> Result<SecretRef, ProfileRefusal.Reason> {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let slotName = parts.first, let slot = SecretSlot(rawValue: String(slotName)) else {
            let slots = SecretSlot.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(.init("the key must be SLOT or SLOT/ACCOUNT, SLOT one of \(slots)"))
        }
        let account = parts.count > 1 ? String(parts[1]) : "default"
        guard !account.isEmpty else { return .failure(.init("the key's account is empty")) }
        return .success(SecretRef(slot, account: account))
    }
}
