/// A ``SecretsPort`` held in this process's memory: the test double, and the honest
/// fallback where no keychain answers.
///
/// Its protection is ``SecretProtection/processMemory``: nothing is written anywhere, and
/// everything is gone when the process exits. It keeps every promise of the secrets
/// contract.
public actor MemorySecrets: SecretsPort {
    public nonisolated let protection: SecretProtection = .processMemory
    private var values: [SecretRef: String]

    /// An empty store, or one holding `seed` (for example keys read from the environment).
    public init(_ seed: [SecretRef: String] = [:]) {
        values = seed
    }

    public func has(_ ref: SecretRef) -> Bool {
        values[ref] != nil
    }

    public func get(_ ref: SecretRef) -> String? {
        values[ref]
    }

    public func set(_ ref: SecretRef, _ value: String) {
        values[ref] = value
    }

    public func delete(_ ref: SecretRef) {
        values[ref] = nil
    }
}
