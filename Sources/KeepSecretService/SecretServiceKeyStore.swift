import KeepPorts

/// A ``/KeepPorts/KeyStorePort`` on the freedesktop Secret Service, beside ``SecretServiceSecrets``.
///
/// Each key is one item under Keep's schema `keep.AppKey`, with the attributes `app` and
/// `key` (the ``/KeepPorts/KeyName``) and the key's raw bytes as its secret
/// (`application/octet-stream`). No `slot` attribute: a search for a user's secret never
/// finds a key, and a search for a key never finds a secret.
///
/// `store` replaces, `load` of a key never stored is `nil`, `delete` of an absent key
/// succeeds. It throws exactly as ``SecretServiceSecrets`` does: no session bus, no
/// Secret Service, no default collection and a locked one are each their own
/// ``/KeepPorts/SecretsError/Code``, never `nil`, never a file.
public struct SecretServiceKeyStore: KeyStorePort {
    /// `osKeyring`: encrypted at rest with the login password, and not hardware.
    public var protection: SecretProtection { .osKeyring }

    /// The value of every item's `app` attribute.
    public let application: String
    private let client: SecretServiceClient

    /// The key store on the user's session bus; throws ``/KeepPorts/SecretsError/Code/invalidRef``
    /// for an application name that is not 1–64 characters of `A-Z a-z 0-9 . _ -`.
    public init(application: String = "keep") throws(SecretsError) {
        try self.init(bus: .session, application: application)
    }

    /// The key store on the bus at `busAddress`.
    public init(busAddress: String, application: String = "keep") throws(SecretsError) {
        try self.init(bus: .address(busAddress), application: application)
    }

    init(bus: BusAddress, application: String) throws(SecretsError) {
        try ItemQuery.checkApplication(application)
        self.application = application
        client = SecretServiceClient(bus: bus)
    }

    /// Throws the reason keys cannot be kept here, if there is one.
    public func checkAvailable() async throws(SecretsError) {
        try await client.checkAvailable(operation: "connect")
    }

    /// The key's bytes from its item, or `nil` when no item holds it; a keyring that cannot
    /// be asked throws, never answers `nil`.
    public func load(_ name: KeyName) async throws(SecretsError) -> [UInt8]? {
        try await client.read(query(name), operation: "load of key \(name)", ref: nil)
    }

    /// Creates or replaces the one item for `name`, holding `key` as raw bytes.
    public func store(_ name: KeyName, _ key: [UInt8]) async throws(SecretsError) {
        try await client.write(
            query(name), label: "\(application): app key \(name)", .bytes(key), operation: "store of key \(name)",
            ref: nil)
    }

    /// Deletes the item for `name`; an absent key is fine.
    public func delete(_ name: KeyName) async throws(SecretsError) {
        try await client.remove(query(name), operation: "delete of key \(name)", ref: nil)
    }

    private func query(_ name: KeyName) -> ItemQuery {
        .appKey(name, application: application)
    }
}
