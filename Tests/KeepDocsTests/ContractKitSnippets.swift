import KeepConformance
import Testing

/// The contract-kit article's test, run here on ``MyStore``: the code a reader copies is
/// the code that passes.
@Suite("The contract-kit article's example")
struct ContractKitSnippets {
    @Test("my store honours the storage contract", arguments: StorageContract.cases)
    func myStoreHonoursTheContract(_ rule: StorageContract.Case) async throws {
        try await rule.check { MyStore() }  // a fresh, empty store each call
    }

}
