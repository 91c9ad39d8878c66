import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

/// The adapters the storage-dependent rules run on: each rule holds on every one.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory
    case fileStore

    var testDescription: String {
        switch self {
        case .memory: "on MemoryStorage"
        case .fileStore: "on FileStore"
        }
    }

    /// A fresh, empty, isolated store of this kind, with the legacy store beside it.
    func fixture() throws -> StoreFixture {
        switch self {
        case .memory:
            // In-memory data lives in its actor, so every launch gets that same actor.
            let store = MemoryStorage()
            let legacy = MemoryStorage()
            return StoreFixture(directory: nil, open: { store }, openLegacy: { legacy })
        case .fileStore:
            // The app's layout in a directory of the test's own: `store/` and `store.json`.
            let directory = try TemporaryDirectory()
            return StoreFixture(
                directory: directory, open: { try FileStore(root: directory.path) },
                openLegacy: { try BlobFileStore(root: directory.path) })
        }
    }
}

/// One store for one test, and its "relaunch": the store as a new launch opens it.
struct StoreFixture {
    /// The test's own directory, for a store on disk; removed with the fixture.
    let directory: TemporaryDirectory?
    private let make: () throws -> any StoragePort
    private let makeLegacy: () throws -> any StoragePort

    init(
        directory: TemporaryDirectory?, open: @escaping () throws -> any StoragePort,
        openLegacy: @escaping () throws -> any StoragePort
    ) {
        self.directory = directory
        self.make = open
        self.makeLegacy = openLegacy
    }

    /// The store as a launch of the app opens it: a new adapter over the same data.
    func open() throws -> any StoragePort {
        try make()
    }

    /// The legacy whole-blob store of the same install (`store.json` beside `store/` on
    /// disk), as a launch opens it.
    func openLegacy() throws -> any StoragePort {
        try makeLegacy()
    }
}
