import KeepPorts

/// A ``/KeepPorts/SecretsPort`` on the freedesktop Secret Service (GNOME Keyring, KWallet), through libsecret.
///
/// Each secret is one item in the keyring, under Keep's schema `keep.Secret`, with the
/// attributes `app` (the application name, `keep` unless you give another), `slot` and
/// `account`; `secret-tool search --all app keep` lists them. The adapter keeps every
/// promise of the secrets contract, and:
///
/// - An item is the ref's only when its attributes are exactly `app`, `slot`, `account`
///   with the ref's values (and its schema keep's, or none): another application's item
///   that shares them and adds one is never read, replaced or deleted.
/// - `set` creates or replaces the one item for the ref, never a second one.
/// - `get` fetches the value over libsecret's encrypted session and wipes libsecret's copy.
/// - `has` answers from a search that loads no secret: the value never crosses D-Bus.
/// - The slot is checked against the closed set again at the C boundary, at run time, and
///   an account holding a NUL is refused with ``/KeepPorts/SecretsError/Code/invalidRef``.
///
/// Absent is not unavailable: no session bus, no Secret Service on it, no default
/// collection and a locked collection each throw their own ``/KeepPorts/SecretsError/Code``, never
/// `nil`, and nothing ever falls back to a file. A locked collection is never unlocked.
///
/// Protection is `SecretProtection.osKeyring`: the keyring is encrypted at rest with the
/// login password, which is real protection, but not hardware.
///
/// Making one touches nothing: it connects on its first call, and again after the service
/// went away. libsecret blocks, so its calls run on a serial queue of their own.
public struct SecretServiceSecrets: SecretsPort {
    /// `osKeyring`: encrypted at rest with the login password, and not hardware.
    public var protection: SecretProtection { .osKeyring }

    /// The value of every item's `app` attribute.
    public let application: String
    private let client: SecretServiceClient

    /// The adapter on the user's session bus.
    ///
    /// Throws ``/KeepPorts/SecretsError/Code/invalidRef`` when `application` is not 1–64 characters
    /// of `A-Z a-z 0-9 . _ -`.
    public init(application: String = "keep") throws(SecretsError) {
        try self.init(bus: .session, application: application)
    }

    /// The adapter on the bus at `busAddress` (a D-Bus address such as
    /// `unix:path=/run/user/1000/bus`), for a private bus of your own.
    public init(busAddress: String, application: String = "keep") throws(SecretsError) {
        try self.init(bus: .address(busAddress), application: application)
    }

    init(bus: BusAddress, application: String) throws(SecretsError) {
        try ItemQuery.checkApplication(application)
        self.application = application
        client = SecretServiceClient(bus: bus)
    }

    /// Throws the reason secrets cannot be kept here, if there is one: no session bus, no
    /// Secret Service, no default collection, or a locked one.
    public func checkAvailable() async throws(SecretsError) {
        try await client.checkAvailable(operation: "connect")
    }

    /// Whether an item holds `ref`, from a search that loads no secret: the value never
    /// crosses D-Bus.
    public func has(_ ref: SecretRef) async throws(SecretsError) -> Bool {
        try await client.has(query(ref), operation: "has", ref: ref)
    }

    /// The secret of `ref`, fetched over libsecret's encrypted session (libsecret's copy
    /// wiped), or `nil` when none is stored; a value that is not UTF-8 is a `backend`
    /// error.
    public func get(_ ref: SecretRef) async throws(SecretsError) -> String? {
        guard let bytes = try await client.read(query(ref), operation: "get", ref: ref) else { return nil }
        guard let value = String(validating: bytes, as: UTF8.self) else {
            throw SecretsError(
                code: .backend, operation: "get", ref: ref,
                detail: "the stored value is not UTF-8 text (\(bytes.count) bytes); set it again")
        }
        return value
    }

    /// Creates or replaces the one item for `ref`, never a second one.
    public func set(_ ref: SecretRef, _ value: String) async throws(SecretsError) {
        try await client.write(query(ref), label: label(ref), .text(value), operation: "set", ref: ref)
    }

    /// Deletes the item for `ref`, and only an item that is exactly the ref's; an absent
    /// secret is fine.
    public func delete(_ ref: SecretRef) async throws(SecretsError) {
        try await client.remove(query(ref), operation: "delete", ref: ref)
    }

    private func query(_ ref: SecretRef) -> ItemQuery {
        .secret(ref, application: application)
    }

    /// What a keyring manager shows: whose key, for which provider and account; never the value.
    private func label(_ ref: SecretRef) -> String {
        "\(application): \(ref.slot.rawValue) key for \(StorageError.quoted(ref.account))"
    }
}
