import KeepPorts

/// A sealing store to check, as the sealing contract needs it: the store, the store it
/// wraps (whose bytes a case reads and tampers with), which namespaces it seals, and a way to
/// make another over the same inner store under another key.
public struct SealedStoreUnderTest: Sendable {
    /// The sealing store.
    public let store: any StoragePort
    /// The store it keeps its sealed records in.
    public let inner: any StoragePort
    /// Two namespaces it seals, at least; the others it must pass through.
    public let sealed: [Namespace]
    /// A sealing store over the same `inner`, sealing the same namespaces under another key.
    public let underAnotherKey: @Sendable () async throws -> any StoragePort

    /// The store under test: `store` sealing `sealed` in `inner`, and how to make its twin
    /// under another key.
    public init(
        store: any StoragePort, inner: any StoragePort, sealed: [Namespace],
        underAnotherKey: @escaping @Sendable () async throws -> any StoragePort
    ) {
        self.store = store
        self.inner = inner
        self.sealed = sealed
        self.underAnotherKey = underAnotherKey
    }
}

/// The sealing contract: the rules only a sealing store must keep, beyond the storage and
/// append contracts (which it keeps too, for every namespace).
///
/// Every value of a sealed namespace reaches the store beneath as sealed records, never as
/// its text; each is bound to its namespace, its id and each record's place in the value,
/// and opens only under its key: anything else is refused by name
/// (``/KeepPorts/StorageError/Code/corrupt``, naming the key, never quoting a byte).
///
/// ```swift
/// @Test(arguments: SealingContract.cases)
/// func mySealerHonoursTheSealingContract(_ rule: SealingContract.Case) async throws {
///     try await rule.check { try MySealer.underTest() }
/// }
/// ```
public enum SealingContract {
    /// A rule of the sealing contract, run against a sealing store and the store it wraps.
    public typealias Case = ContractCase<SealedStoreUnderTest>

    /// Every case, in the order they are documented.
    public static let cases: [Case] = [
        noPlaintextReachesTheInnerStore, aSwappedValueIsRefused, aRenamedValueIsRefused,
        aValueMovedToAnotherNamespaceIsRefused, aValueUnderAnotherKeyIsRefused, aMovedOrCutRecordIsRefused,
        aPlainLineAfterARecordIsRefused, aPlainValueReadsAndTakesAppends,
    ]

    /// The case named `name`, for tests that pin one rule.
    public static func named(_ name: String) -> Case? {
        cases.first { $0.name == name }
    }

    /// A marker no sealed byte can hold by chance.
    static let marker = "PLAINTEXT-MARKER-7c1e"

    /// Written and appended values of a sealed namespace never show in the inner store's
    /// bytes; in a namespace it does not seal, the same value is there as it was written.
    public static let noPlaintextReachesTheInnerStore = Case(
        "the store beneath never holds a sealed value's text, and holds other values as written"
    ) { make, expect in
        let fixture = try await make()
        let sealed = StorageKey(fixture.sealed[0], "marked")
        try await fixture.store.write(sealed, "head \(marker)\n")
        _ = try await fixture.store.append(sealed) { _ in "line \(marker)" }
        try expect.equal(
            try await fixture.store.read(sealed), "head \(marker)\nline \(marker)\n", "read of the sealed value")
        let raw = try await fixture.inner.read(sealed) ?? ""
        try expect.that(!raw.isEmpty && !raw.contains(marker), "the inner store holds the sealed value's text")
        // The positive: the same scan sees the text of a namespace that is not sealed.
        guard let open = Namespace.allCases.first(where: { !fixture.sealed.contains($0) }) else { return }
        let plain = StorageKey(open, "marked")
        try await fixture.store.write(plain, "head \(marker)\n")
        try expect.equal(try await fixture.inner.read(plain), "head \(marker)\n", "the inner value of \(open)")
    }

    /// Two values' stored bytes swapped: each is refused as corrupt, by its own name.
    public static let aSwappedValueIsRefused = Case("a value swapped with another's is refused by name") {
        make, expect in
        let fixture = try await make()
        let first = StorageKey(fixture.sealed[0], "first")
        let second = StorageKey(fixture.sealed[0], "second")
        try await fixture.store.write(first, "the first \(marker)\n")
        try await fixture.store.write(second, "the second \(marker)\n")
        let (a, b) = (try await fixture.inner.read(first) ?? "", try await fixture.inner.read(second) ?? "")
        try await fixture.inner.write(first, b)
        try await fixture.inner.write(second, a)
        try await refused(first, in: fixture, expect, raw: [a, b])
        try await refused(second, in: fixture, expect, raw: [a, b])
    }

    /// A value's stored bytes given another id (the file renamed): refused under that id.
    public static let aRenamedValueIsRefused = Case("a value renamed to another id is refused by name") {
        make, expect in
        let fixture = try await make()
        let original = StorageKey(fixture.sealed[0], "original")
        let renamed = StorageKey(fixture.sealed[0], "renamed")
        try await fixture.store.write(original, "a value \(marker)\n")
        let raw = try await fixture.inner.read(original) ?? ""
        try await fixture.inner.write(renamed, raw)
        try await fixture.inner.remove(original)
        try await refused(renamed, in: fixture, expect, raw: [raw])
    }

    /// A value's stored bytes put under the same id in another sealed namespace: refused.
    public static let aValueMovedToAnotherNamespaceIsRefused = Case(
        "a value moved to another sealed namespace is refused by name"
    ) { make, expect in
        let fixture = try await make()
        let from = StorageKey(fixture.sealed[0], "moved")
        let to = StorageKey(fixture.sealed[1], "moved")
        try await fixture.store.write(from, "a value \(marker)\n")
        let raw = try await fixture.inner.read(from) ?? ""
        try await fixture.inner.write(to, raw)
        try await refused(to, in: fixture, expect, raw: [raw])
    }

    /// A value sealed by one key, read by a store under another: refused.
    public static let aValueUnderAnotherKeyIsRefused = Case("a value sealed under another key is refused by name") {
        make, expect in
        let fixture = try await make()
        let key = StorageKey(fixture.sealed[0], "keyed")
        try await fixture.store.write(key, "a value \(marker)\n")
        _ = try await fixture.store.append(key) { _ in "a line \(marker)" }
        let other = try await fixture.underAnotherKey()
        let raw = try await fixture.inner.read(key) ?? ""
        let error = try await expect.throwsError(StorageError.self, "reading under another key") {
            _ = try await other.read(key)
        }
        try checkRefusal(error, key, expect, raw: [raw])
    }

    /// The records of one value reordered, or one cut out of the middle: refused.
    public static let aMovedOrCutRecordIsRefused = Case(
        "a record moved within a value, or cut from its middle, is refused"
    ) { make, expect in
        let fixture = try await make()
        let key = StorageKey(fixture.sealed[0], "records")
        try await fixture.store.write(key, "head \(marker)\n")
        for number in 1...3 { _ = try await fixture.store.append(key) { _ in "line \(number) \(marker)" } }
        let raw = try await fixture.inner.read(key) ?? ""
        var lines = raw.split(separator: "\n").map(String.init)
        try expect.that(lines.count == 4, "four records were not four lines of the inner value")
        lines.swapAt(1, 2)
        try await fixture.inner.write(key, lines.joined(separator: "\n") + "\n")
        try await refused(key, in: fixture, expect, raw: [raw])
        lines.swapAt(1, 2)
        lines.remove(at: 1)
        try await fixture.inner.write(key, lines.joined(separator: "\n") + "\n")
        try await refused(key, in: fixture, expect, raw: [raw])
    }

    /// A plain line added after a value's sealed records (a forged turn): refused.
    public static let aPlainLineAfterARecordIsRefused = Case("a plain line after a sealed record is refused") {
        make, expect in
        let fixture = try await make()
        let key = StorageKey(fixture.sealed[0], "forged")
        try await fixture.store.write(key, "head \(marker)\n")
        let raw = try await fixture.inner.read(key) ?? ""
        try await fixture.inner.write(key, raw + "a forged line\n")
        try await refused(key, in: fixture, expect, raw: [raw])
    }

    /// A value the inner store holds in plain (written before sealing) reads as it is, and a
    /// line appended to it is sealed after its plain lines.
    public static let aPlainValueReadsAndTakesAppends = Case(
        "a plain value in a sealed namespace reads as it is, and what is appended to it is sealed"
    ) { make, expect in
        let fixture = try await make()
        let key = StorageKey(fixture.sealed[0], "before-sealing")
        try await fixture.inner.write(key, "written plain\n")
        try expect.equal(try await fixture.store.read(key), "written plain\n", "read of a plain value")
        _ = try await fixture.store.append(key) { _ in "appended \(marker)" }
        try expect.equal(
            try await fixture.store.read(key), "written plain\nappended \(marker)\n", "read after an append")
        let raw = try await fixture.inner.read(key) ?? ""
        try expect.that(raw.hasPrefix("written plain\n") && !raw.contains(marker), "the appended line is not sealed")
    }

    /// Checks that reading `key` is refused as its own problem.
    private static func refused(
        _ key: StorageKey, in fixture: SealedStoreUnderTest, _ expect: Expectation, raw: [String]
    ) async throws {
        let error = try await expect.throwsError(StorageError.self, "reading \(key)") {
            _ = try await fixture.store.read(key)
        }
        try checkRefusal(error, key, expect, raw: raw)
    }

    /// A refusal is `corrupt`, names the key, and quotes neither text nor sealed bytes.
    private static func checkRefusal(
        _ error: StorageError, _ key: StorageKey, _ expect: Expectation, raw: [String]
    ) throws {
        try expect.equal(error.code, .corrupt, "the code of the refusal of \(key)")
        try expect.that(error.description.contains(key.description), "the refusal does not name \(key)")
        try expect.that(!error.description.contains(marker), "the refusal quotes the value's text")
        for value in raw {
            for line in value.split(separator: "\n") where line.count > 24 {
                try expect.that(
                    !error.description.contains(line.suffix(24)), "the refusal quotes the stored bytes")
            }
        }
    }
}
