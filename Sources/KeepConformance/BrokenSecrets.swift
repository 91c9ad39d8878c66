import KeepPorts

/// A deliberately broken ``/KeepPorts/SecretsPort``, one flaw at a time, to prove the secrets contract
/// catches each way an adapter can go wrong.
///
/// The contract must fail on exactly the case named by ``SecretsFlaw/breaks`` and pass
/// every other case.
public actor BrokenSecrets: SecretsPort {
    /// `processMemory`: it holds its secrets in memory only.
    public nonisolated let protection: SecretProtection = .processMemory
    private let flaw: SecretsFlaw
    private var values: [String: String] = [:]

    /// An empty secrets store with `flaw`, and otherwise correct.
    public init(_ flaw: SecretsFlaw) {
        self.flaw = flaw
    }

    /// Whether a value is stored for the ref (for the slot alone with `slotOnly`).
    public func has(_ ref: SecretRef) -> Bool {
        values[slot(ref)] != nil
    }

    /// The value stored for the ref (for the slot alone with `slotOnly`), or `nil`.
    public func get(_ ref: SecretRef) -> String? {
        values[slot(ref)]
    }

    /// Stores the value, except with `emptyIsAbsent`: an empty value is stored as nothing.
    public func set(_ ref: SecretRef, _ value: String) {
        // `value || nil`: an empty key stored as nothing.
        values[slot(ref)] = flaw == .emptyIsAbsent && value.isEmpty ? nil : value
    }

    /// Deletes the value, except with `deleteAbsentThrows`: deleting an absent secret
    /// throws.
    public func delete(_ ref: SecretRef) throws(SecretsError) {
        if flaw == .deleteAbsentThrows, values[slot(ref)] == nil {
            throw SecretsError(code: .backend, operation: "delete", ref: ref, detail: "no such item")
        }
        values[slot(ref)] = nil
    }

    /// Where a secret lives: slot and account, or the slot alone when that is the flaw.
    private func slot(_ ref: SecretRef) -> String {
        flaw == .slotOnly ? ref.slot.rawValue : "\(ref.slot.rawValue):\(ref.account)"
    }
}

/// The ways ``BrokenSecrets`` can be broken, named as the break modes of the specification.
public enum SecretsFlaw: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Secrets are keyed by slot alone, so a second account overwrites the first.
    case slotOnly = "secrets_slot_only"
    /// An empty string is stored as nothing.
    case emptyIsAbsent = "secrets_empty_is_absent"
    /// Deleting an absent secret throws.
    case deleteAbsentThrows = "secrets_delete_absent_throws"

    /// The name of the one contract case this flaw must fail.
    public var breaks: String {
        switch self {
        case .slotOnly: SecretsContract.bothHalvesOfARefAreTheKey.name
        case .emptyIsAbsent: SecretsContract.anEmptyStringIsAStoredValue.name
        case .deleteAbsentThrows: SecretsContract.deletingAnAbsentSecretSucceeds.name
        }
    }

    public var description: String { rawValue }
}
