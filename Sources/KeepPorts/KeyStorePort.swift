/// Where an app keeps its own keys: the platform's secure storage, under names that no
/// ``SecretSlot`` can produce, so a user's credential and a data key can never meet.
///
/// A key is raw bytes. `load` of a key never stored is `nil`; a store that cannot be
/// reached throws a ``SecretsError`` (never `nil`, never a file). Adapters live beside the
/// secrets adapter of the same mechanism; ``MemoryKeyStore`` is the test double.
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
