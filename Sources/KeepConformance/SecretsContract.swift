import Foundation
import KeepPorts

/// The secrets contract: every rule a ``/KeepPorts/SecretsPort`` adapter must keep to be drop-in
/// compatible with ``/KeepPorts/MemorySecrets`` and the Secret Service adapter.
///
/// Each case works under accounts of its own (`contract-<uuid>`) and deletes what it
/// stored, so the contract can run against a real keychain shared by other tests; a
/// factory may therefore return the same adapter every time.
///
/// ```swift
/// @Test(arguments: SecretsContract.cases)
/// func honoursTheSecretsContract(_ rule: ContractCase<any SecretsPort>) async throws {
///     try await rule.check { MySecrets() }
/// }
/// ```
public enum SecretsContract {
    /// A rule of the secrets contract, run against any ``/KeepPorts/SecretsPort``.
    public typealias Case = ContractCase<any SecretsPort>

    /// Every case, in the order they are documented.
    public static let cases: [Case] = [
        bothHalvesOfARefAreTheKey, twoSlotsNeverShare, anOverwriteReplaces, anEmptyStringIsAStoredValue,
        aNeverSetSecretIsNil, deletingAnAbsentSecretSucceeds, aDeletedSecretIsGone, aValueReadsBackExactly,
    ]

    /// The case named `name`, for tests that pin one rule.
    public static func named(_ name: String) -> Case? {
        cases.first { $0.name == name }
    }

    /// Setting, deleting or reading one account of a slot never touches a sibling account
    /// of the same slot.
    public static let bothHalvesOfARefAreTheKey = Case(
        "both halves of a ref are the key: sibling accounts are independent"
    ) { make, expect in
        let secrets = try await make()
        let work = SecretRef(.openai, account: uniqueAccount("work"))
        let personal = SecretRef(.openai, account: uniqueAccount("personal"))
        try await cleaningUp(secrets, [work, personal]) {
            try await secrets.set(work, "sk-work")
            try expect.equal(try await secrets.has(personal), false, "has() of a sibling account never set")
            try expect.equal(try await secrets.get(personal), nil, "get() of a sibling account never set")
            try await secrets.set(personal, "sk-personal")
            try expect.equal(try await secrets.get(work), "sk-work", "get() of work after setting personal")
            try expect.equal(try await secrets.get(personal), "sk-personal", "get() of personal")
            try await secrets.delete(personal)
            try expect.equal(try await secrets.get(work), "sk-work", "get() of work after deleting personal")
            try expect.equal(try await secrets.has(work), true, "has() of work after deleting personal")
        }
    }

    /// The same account in every slot holds a value of its own; deleting one leaves the
    /// others.
    public static let twoSlotsNeverShare = Case("two slots never share a secret") { make, expect in
        let secrets = try await make()
        let account = uniqueAccount("shared")
        let refs = SecretSlot.allCases.map { SecretRef($0, account: account) }
        try await cleaningUp(secrets, refs) {
            for ref in refs { try await secrets.set(ref, "key for \(ref.slot.rawValue)") }
            for ref in refs {
                try expect.equal(try await secrets.get(ref), "key for \(ref.slot.rawValue)", "get() of \(ref.slot)")
            }
            try await secrets.delete(refs[0])
            try expect.equal(
                try await secrets.has(refs[1]), true, "has() of \(refs[1].slot) after deleting \(refs[0].slot)")
        }
    }

    /// A second `set` replaces the first value, a shorter one included.
    public static let anOverwriteReplaces = Case("an overwrite replaces the value") { make, expect in
        let secrets = try await make()
        let ref = SecretRef(.anthropic, account: uniqueAccount("overwrite"))
        try await cleaningUp(secrets, [ref]) {
            try await secrets.set(ref, "first-value-that-is-longer")
            try await secrets.set(ref, "second")
            try expect.equal(try await secrets.get(ref), "second", "get() after an overwrite")
        }
    }

    /// `""` set is present (`has` is true) and reads back as `""`, never as `nil`.
    public static let anEmptyStringIsAStoredValue = Case("an empty string is a stored value, not an absence") {
        make, expect in
        let secrets = try await make()
        let ref = SecretRef(.custom, account: uniqueAccount("empty"))
        try await cleaningUp(secrets, [ref]) {
            try await secrets.set(ref, "")
            try expect.equal(try await secrets.has(ref), true, "has() of a stored empty string")
            try expect.equal(try await secrets.get(ref), "", "get() of a stored empty string")
        }
    }

    /// `get` of a ref never set answers `nil` and `has` answers false; neither throws.
    public static let aNeverSetSecretIsNil = Case("reading a never-set secret is nil, not an error") {
        make, expect in
        let secrets = try await make()
        let ref = SecretRef(.google, account: uniqueAccount("never"))
        try expect.equal(try await secrets.get(ref), nil, "get() of a never-set secret")
        try expect.equal(try await secrets.has(ref), false, "has() of a never-set secret")
    }

    /// `delete` of a ref never set, or deleted already, succeeds.
    public static let deletingAnAbsentSecretSucceeds = Case("deleting an absent secret succeeds") { make, expect in
        let secrets = try await make()
        let ref = SecretRef(.openrouter, account: uniqueAccount("absent"))
        try await secrets.delete(ref)
        try await secrets.set(ref, "x")
        try await secrets.delete(ref)
        try await secrets.delete(ref)
        try expect.equal(try await secrets.has(ref), false, "has() after deleting twice")
    }

    /// After `delete`, `has` is false and `get` is `nil`.
    public static let aDeletedSecretIsGone = Case("a deleted secret reads as nil and is not present") {
        make, expect in
        let secrets = try await make()
        let ref = SecretRef(.openai, account: uniqueAccount("deleted"))
        try await cleaningUp(secrets, [ref]) {
            try await secrets.set(ref, "sk-to-delete")
            try expect.equal(try await secrets.has(ref), true, "has() after set")
            try await secrets.delete(ref)
            try expect.equal(try await secrets.has(ref), false, "has() after delete")
            try expect.equal(try await secrets.get(ref), nil, "get() after delete")
        }
    }

    /// Values with spaces at the ends, line breaks, non-ASCII and 4 KiB read back byte for
    /// byte: nothing is trimmed or re-encoded.
    public static let aValueReadsBackExactly = Case("a secret reads back exactly as stored") { make, expect in
        let secrets = try await make()
        let values = [
            "sk-live-1234567890", " spaced out ", "line\nbreak", "ünïcödé 🔑", String(repeating: "k", count: 4096),
        ]
        let refs = values.indices.map { SecretRef(.custom, account: uniqueAccount("exact-\($0)")) }
        try await cleaningUp(secrets, refs) {
            for (ref, value) in zip(refs, values) {
                try await secrets.set(ref, value)
                try expect.equal(try await secrets.get(ref), value, "get() of value \(ref.account)")
            }
        }
    }

    /// An account no other run uses, so cases never meet on a shared keychain.
    static func uniqueAccount(_ label: String) -> String {
        "contract-\(label)-\(UUID().uuidString.lowercased())"
    }

    /// Runs `body`, then deletes `refs` whether it passed or not. Clean-up is not part of
    /// the rule under test, so its own errors are ignored; `body`'s are rethrown.
    static func cleaningUp(
        _ secrets: any SecretsPort, _ refs: [SecretRef], _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
        } catch {
            for ref in refs { try? await secrets.delete(ref) }
            throw error
        }
        for ref in refs { try? await secrets.delete(ref) }
    }
}
