/// Where an app keeps its own keys: the platform's secure storage, under names that no
/// ``SecretSlot`` can produce, so a user's credential and a data key can never meet.
///
/// A key is raw bytes. `load` of a key never stored is `nil`; a store that cannot be
/// reached throws a ``SecretsError`` (never `nil`, never a file). Adapters live beside the
/// secrets adapter of the same mechanism; `MemoryKeyStore` is the test double.
public protocol KeyStorePort: Sendable {
    /// How the keys are protected; ``SecretProtection/processMemory`` means nothing is
    /// kept between launches.
    var protection: SecretProtection { get }

    /// The key called `name`, or `nil` when none was stored.
    func load(_ name: KeyName) async throws(SecretsError) -> [UInt8]?

    /// Stores `key` under `name`, replacing any earlier key.
    func store(_ name: KeyName, _ key: [UInt8]) async throws(SecretsError)

    /// Removes the key called `name`; removing an absent key succeeds.
    func delete(_ name: KeyName) async throws(SecretsError)
}

/// The name of an app key: a short lowercase word, checked when made.
public struct KeyName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// `name` when it is 1–64 characters of `a-z 0-9 -`, else a typed error.
    public init(_ name: String) throws(SecretsError) {
        let allowed = name.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw SecretsError(
                code: .invalidRef, operation: "key name",
                detail: "\(StorageError.quoted(name)) is not a key name (1-64 characters of a-z, 0-9, -)")
        }
        rawValue = name
    }

    public var description: String { rawValue }
}

/// A `KeyStorePort` held in this process's memory: the test double. Its protection is
/// ``SecretProtection/processMemory``, so whoever uses it knows nothing is kept.
public actor MemoryKeyStore: KeyStorePort {
    public nonisolated let protection: SecretProtection = .processMemory
    private var keys: [KeyName: [UInt8]] = [:]

    public init() {}

    public func load(_ name: KeyName) -> [UInt8]? { keys[name] }

    public func store(_ name: KeyName, _ key: [UInt8]) { keys[name] = key }

    public func delete(_ name: KeyName) { keys[name] = nil }
}
