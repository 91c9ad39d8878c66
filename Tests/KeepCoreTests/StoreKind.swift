import KeepConformance
import KeepPorts
import Testing

/// The adapters the storage-dependent rules run on: each rule holds on every one.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory

    var testDescription: String {
        switch self {
        case .memory: "on MemoryStorage"
        }
    }

    /// A fresh, empty, isolated store of this kind.
    func fixture() throws -> StoreFixture {
        switch self {
        case .memory:
            // In-memory data lives in the one actor, so every launch gets that actor.
            let store = MemoryStorage()
            return StoreFixture(directory: nil) { store }
        }
    }
}

/// One store for one test, and its "relaunch": the store as a new launch opens it.
struct StoreFixture {
    /// The test's own directory, for a store on disk; removed with the fixture.
    let directory: TemporaryDirectory?
    private let make: () throws -> any StoragePort

    init(directory: TemporaryDirectory?, _ make: @escaping () throws -> any StoragePort) {
        self.directory = directory
        self.make = make
    }

    /// The store as a launch of the app opens it: a new adapter over the same data.
    func open() throws -> any StoragePort {
        try make()
    }
}
