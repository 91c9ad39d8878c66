import KeepConformance
import KeepPorts
import Testing

/// The contracts are only as good as what they catch: each broken adapter must fail the
/// contract on exactly the case its flaw breaks, and pass every other case.
@Suite("The contracts catch every broken adapter by name")
struct BrokenAdapterTests {
    @Test("a broken storage adapter fails exactly the case its flaw breaks", arguments: StorageFlaw.allCases)
    func brokenStorageFailsItsCase(_ flaw: StorageFlaw) async {
        let failed = await failures(of: StorageContract.cases) { BrokenStorage(flaw) as any StoragePort }
        #expect(failed == [flaw.breaks], "\(flaw) failed \(failed)")
    }

    @Test("a broken append adapter fails exactly the cases its flaw breaks", arguments: AppendFlaw.allCases)
    func brokenAppendsFailTheirCases(_ flaw: AppendFlaw) async {
        let failed = await failures(of: AppendContract.cases) { BrokenAppendStorage(flaw) as any StoragePort }
        #expect(failed == flaw.breaks, "\(flaw) failed \(failed)")
    }

    @Test("the append every store inherits keeps every append rule for one writer, and loses concurrent appends")
    func theDefaultAppendKeepsTheRulesOfOneWriter() async {
        let failed = await failures(of: AppendContract.cases) { WithoutItsOwnAppend() as any StoragePort }
        #expect(failed == [AppendContract.concurrentAppendsEachLandWhole.name], "the default append failed \(failed)")
    }

    @Test("a broken sealing store fails exactly the cases its flaw breaks", arguments: SealingFlaw.allCases)
    func brokenSealersFailTheirCases(_ flaw: SealingFlaw) async {
        let failed = await failures(of: SealingContract.cases) {
            let inner = MemoryStorage()
            let sealed: Set<Namespace> = [.chats, .drafts]
            return SealedStoreUnderTest(
                store: BrokenSealedStorage(flaw, over: inner, key: [1, 2, 3], sealing: sealed), inner: inner,
                sealed: [.chats, .drafts],
                underAnotherKey: { BrokenSealedStorage(flaw, over: inner, key: [4, 5, 6], sealing: sealed) })
        }
        #expect(failed == flaw.breaks, "\(flaw) failed \(failed)")
    }

    @Test("a broken secrets adapter fails exactly the case its flaw breaks", arguments: SecretsFlaw.allCases)
    func brokenSecretsFailsItsCase(_ flaw: SecretsFlaw) async {
        let failed = await failures(of: SecretsContract.cases) { BrokenSecrets(flaw) as any SecretsPort }
        #expect(failed == [flaw.breaks], "\(flaw) failed \(failed)")
    }

    @Test("the specification's six break modes all have a broken adapter")
    func theSpecificationsBreakModesAreCovered() {
        let modes = Set(StorageFlaw.allCases.map(\.rawValue) + SecretsFlaw.allCases.map(\.rawValue))
        let required: Set = [
            "storage_missing_is_undefined", "storage_namespaces_collide", "storage_empty_is_absent",
            "storage_torn_write", "secrets_slot_only", "secrets_empty_is_absent",
        ]
        #expect(required.isSubset(of: modes))
    }

    @Test("every flaw names a case that exists in its contract")
    func everyFlawNamesARealCase() {
        for flaw in StorageFlaw.allCases { #expect(StorageContract.named(flaw.breaks) != nil) }
        for flaw in SecretsFlaw.allCases { #expect(SecretsContract.named(flaw.breaks) != nil) }
        for flaw in AppendFlaw.allCases { #expect(flaw.breaks.allSatisfy { AppendContract.named($0) != nil }) }
        for flaw in SealingFlaw.allCases { #expect(flaw.breaks.allSatisfy { SealingContract.named($0) != nil }) }
    }

    @Test("contract case names are unique sentences")
    func caseNamesAreUnique() {
        let names =
            StorageContract.cases.map(\.name) + SecretsContract.cases.map(\.name) + AppendContract.cases.map(\.name)
            + SealingContract.cases.map(\.name)
        #expect(Set(names).count == names.count)
    }

    @Test("a violation names the case that was broken")
    func aViolationNamesItsCase() async {
        let rule = StorageContract.emptyStringIsAValue
        do {
            try await rule.check { BrokenStorage(.emptyIsAbsent) }
            Issue.record("the broken adapter passed")
        } catch {
            #expect(error.caseName == rule.name)
            #expect(error.description.contains(rule.name))
        }
    }

    @Test("an adapter error while a case runs is reported as a violation of that case")
    func adapterErrorsBecomeViolations() async {
        let rule = StorageContract.missingIsNil
        do {
            try await rule.check { BrokenStorage(.missingIsUndefined) }
            Issue.record("the broken adapter passed")
        } catch {
            #expect(error.caseName == rule.name)
            #expect(error.message.contains("ENOENT"))
        }
    }

    /// The names of the cases that `make`'s adapters fail.
    private func failures<Adapter>(
        of cases: [ContractCase<Adapter>], _ make: @escaping @Sendable () async throws -> Adapter
    ) async -> [String] {
        var failed: [String] = []
        for rule in cases {
            do {
                try await rule.check(make)
            } catch {
                failed.append(error.caseName)
            }
        }
        return failed
    }
}

/// A store written before appends existed: it has no `append` of its own, so it gets the
/// default (a read, then a whole write). Its actor suspends between the two, so concurrent
/// appends can interleave there, as over any store that awaits its disk.
private actor WithoutItsOwnAppend: StoragePort {
    private let values = MemoryStorage()

    func read(_ key: StorageKey) async throws(StorageError) -> String? { try await values.read(key) }

    func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        await Task.yield()
        try await values.write(key, value)
    }

    func remove(_ key: StorageKey) async throws(StorageError) { try await values.remove(key) }

    func listIds(_ namespace: Namespace) async -> [String] { await values.listIds(namespace) }

    func clear(_ namespace: Namespace) async { await values.clear(namespace) }
}
