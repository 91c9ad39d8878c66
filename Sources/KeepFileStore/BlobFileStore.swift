import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The legacy whole-blob `StoragePort`: every value in one JSON file, `<root>/store.json`,
/// under the key `keep.<namespace>.<id>`.
///
/// It is the format `FileStore` replaces, kept as the source a migration reads and as the
/// benchmarks' baseline, and it keeps the whole storage contract: each write reads the file,
/// changes one member and rewrites the whole file through the same atomic, durable path as
/// `FileStore` (temp file, flush, rename, flush of the directory), so a crash leaves the old
/// file or the new one. Writing one key rewrites every key: that is the cost it shows.
///
/// A file that is not one JSON object (truncated, not UTF-8, an array) is
/// ``StorageError/Code/corrupt`` for every operation, and is never written over. Members
/// that are not Keep's (another prefix, an unknown namespace, an empty id) are never listed
/// and are written back exactly as they were. A member of Keep's whose value is not a JSON
/// string is listed, and reading it is `.corrupt`.
///
/// The actor makes each read-change-write whole within one instance; two instances, or two
/// processes, on the same file can lose each other's updates, as whole-blob stores do. A
/// write suspends only once its rename is done, to wait for the directory's flush; a call
/// that runs meanwhile reads the renamed file.
public actor BlobFileStore: StoragePort {
    /// The file: `<root>/store.json`.
    public nonisolated let path: String
    private let root: String
    private let writer: AtomicWriter

    /// The store in `<root>/store.json` (an absolute path), on the real disk. Creates
    /// nothing; removes temp files left in `root` by a writer that died.
    public init(root: String) throws(StorageError) {
        try self.init(root: root, calls: POSIXFileSystem())
    }

    /// The store in `<root>/store.json`, reaching the disk only through `calls`.
    package init(root: String, calls: any FileSystemCalls) throws(StorageError) {
        self.root = try DataRoot.checked(root)
        path = AtomicWriter.join(self.root, "store.json")
        writer = AtomicWriter(calls: calls)
        try writer.sweep(self.root)
    }

    public func read(_ key: StorageKey) throws(StorageError) -> String? {
        try check(key, "read")
        return try load().value(key, path: path)
    }

    public func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        try check(key, "write")
        var document = try load()
        document.set(key, value)
        try await save(document)
    }

    public func remove(_ key: StorageKey) async throws(StorageError) {
        try check(key, "remove")
        var document = try load()
        if document.removeAll(where: { $0 == key }) { try await save(document) }
    }

    public func listIds(_ namespace: Namespace) throws(StorageError) -> [String] {
        try load().ids(in: namespace)
    }

    public func clear(_ namespace: Namespace) async throws(StorageError) {
        var document = try load()
        if document.removeAll(where: { $0.namespace == namespace }) { try await save(document) }
    }

    /// The file as a document; an empty one when there is no file yet.
    private func load() throws(StorageError) -> BlobDocument {
        let bytes: [UInt8]
        do throws(StorageError) {
            bytes = try writer.calls.readFile(path)
        } catch let error where error.errno == ENOENT {
            return BlobDocument()
        }
        return try BlobDocument(parsing: bytes, path: path)
    }

    private func save(_ document: BlobDocument) async throws(StorageError) {
        try await writer.replace(in: root, name: "store.json", bytes: document.serialized())
    }

    /// Refuses the empty id, which no member key can hold apart from its namespace.
    private func check(_ key: StorageKey, _ operation: String) throws(StorageError) {
        if key.id.isEmpty {
            throw .invalidId(key.id, in: key.namespace, operation: operation, reason: "an id cannot be empty")
        }
    }
}
