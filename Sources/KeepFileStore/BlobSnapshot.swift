import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The legacy `store.json` as a read-only ``/KeepPorts/StoragePort``, read and parsed once: the source a
/// one-time migration copies from, so copying n members costs one read of the file, not n.
///
/// Nothing is read until the first call; the file is then read and indexed once and every
/// later call answers from that snapshot (changes made to the file afterwards are not
/// seen). Reads answer as ``BlobFileStore`` does: a member whose value is not a JSON string
/// is ``/KeepPorts/StorageError/Code/corrupt``, a missing file is an empty store, a file that is not
/// one JSON object is `.corrupt` for every call. `write`, `remove` and `clear` are refused
/// (``/KeepPorts/StorageError/Code/unavailable``): a migration never changes its source.
public actor BlobSnapshot: StoragePort {
    /// The file: `<root>/store.json`.
    public nonisolated let path: String
    private let calls: any FileSystemCalls
    private var loaded: Result<Loaded, StorageError>?

    private struct Loaded {
        let members: [StorageKey: BlobDocument.Member]
        let ids: [Namespace: [String]]
    }

    /// The snapshot of `<root>/store.json` (an absolute path), on the real disk.
    public init(root: String) throws(StorageError) {
        try self.init(root: root, calls: POSIXFileSystem())
    }

    /// The snapshot of `<root>/store.json`, reaching the disk only through `calls`.
    package init(root: String, calls: any FileSystemCalls) throws(StorageError) {
        path = AtomicWriter.join(try DataRoot.checked(root), "store.json")
        self.calls = calls
    }

    /// The member's value from the snapshot (the file read on the first call), or `nil`
    /// when there is none.
    public func read(_ key: StorageKey) throws(StorageError) -> String? {
        guard let member = try load().members[key] else { return nil }
        return try BlobDocument.value(of: member, path: path)
    }

    /// The ids of Keep's members in `namespace`, from the snapshot.
    public func listIds(_ namespace: Namespace) throws(StorageError) -> [String] {
        try load().ids[namespace] ?? []
    }

    /// Refused with `unavailable`: a migration never changes its source.
    public func write(_ key: StorageKey, _ value: String) throws(StorageError) {
        throw refused("write")
    }

    /// Refused with `unavailable`: a migration never changes its source.
    public func remove(_ key: StorageKey) throws(StorageError) {
        throw refused("remove")
    }

    /// Refused with `unavailable`: a migration never changes its source.
    public func clear(_ namespace: Namespace) throws(StorageError) {
        throw refused("clear")
    }

    /// The file, read and indexed on the first call only.
    private func load() throws(StorageError) -> Loaded {
        if let loaded { return try loaded.get() }
        let result: Result<Loaded, StorageError>
        do throws(StorageError) {
            let document: BlobDocument
            do throws(StorageError) {
                document = try BlobDocument(parsing: try calls.readFile(path), path: path)
            } catch let error where error.errno == ENOENT {
                document = BlobDocument()
            }
            var ids: [Namespace: [String]] = [:]
            for namespace in Namespace.allCases { ids[namespace] = document.ids(in: namespace) }
            result = .success(Loaded(members: document.index(), ids: ids))
        } catch {
            result = .failure(error)
        }
        loaded = result
        return try result.get()
    }

    private func refused(_ operation: String) -> StorageError {
        StorageError(code: .unavailable, operation: operation, path: path, reason: "a migration's source is only read")
    }
}
