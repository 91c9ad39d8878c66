import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The legacy whole-blob ``/KeepPorts/StoragePort``: every value in one JSON file, `<root>/store.json`,
/// under the key `keep.<namespace>.<id>`.
///
/// It is the format ``FileStore`` replaces, kept as the source a migration reads and as the
/// benchmarks' baseline, and it keeps the whole storage contract: each write reads the file,
/// changes one member and rewrites the whole file through the same atomic, durable path as
/// ``FileStore`` (temp file, flush, rename, flush of the directory), so a crash leaves the old
/// file or the new one. Writing one key rewrites every key: that is the cost it shows.
///
/// A file that is not one JSON object (truncated, not UTF-8, an array) is
/// ``/KeepPorts/StorageError/Code/corrupt`` for every operation, and is never written over. Members
/// that are not Keep's (another prefix, an unknown namespace, an empty id) are never listed
/// and are written back exactly as they were. A member of Keep's whose value is not a JSON
/// string is listed, and reading it is `.corrupt`.
///
/// Each read-change-write (`write`, `remove`, `clear`) is whole within one instance: they
/// take turns, each reading the file only once the one before has replaced it, so
/// concurrent writes to distinct keys all survive. A read runs at any time and sees the
/// old file or the new one. Two instances, or two processes, on the same file can lose
/// each other's updates, as whole-blob stores do.
public actor BlobFileStore: StoragePort {
    /// The file: `<root>/store.json`.
    public nonisolated let path: String
    private let root: String
    private let writer: AtomicWriter
    /// Whether a read-change-write is under way, and who waits for it to end.
    private var changing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

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

    /// The member `keep.<namespace>.<id>` of `store.json`, or `nil` when there is none; a
    /// file that is not one JSON object, or a member that is not a string, is `corrupt`.
    public func read(_ key: StorageKey) throws(StorageError) -> String? {
        try check(key, "read")
        return try load().value(key, path: path)
    }

    /// Sets the member and rewrites the whole file through the atomic, durable path, after
    /// any change already under way in this instance.
    public func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        try check(key, "write")
        try await change { document in
            document.set(key, value)
            return true
        }
    }

    /// Removes the member and rewrites the whole file; an absent key is fine.
    public func remove(_ key: StorageKey) async throws(StorageError) {
        try check(key, "remove")
        try await change { $0.removeAll(where: { $0 == key }) }
    }

    /// The ids of Keep's members in `namespace`; members that are not Keep's are never
    /// listed.
    public func listIds(_ namespace: Namespace) throws(StorageError) -> [String] {
        try load().ids(in: namespace)
    }

    /// Removes every member of `namespace` and rewrites the whole file; members that are
    /// not Keep's are written back as they were.
    public func clear(_ namespace: Namespace) async throws(StorageError) {
        try await change { $0.removeAll(where: { $0.namespace == namespace }) }
    }

    /// Adds the line to the member's value (after cutting its unfinished last line) and
    /// rewrites the whole file, as one change among this instance's others; `false`,
    /// writing nothing, when there is no such member.
    @discardableResult
    public func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        try check(key, "append")
        var appended = false
        try await change { (document) throws(StorageError) -> Bool in
            guard let old = try document.value(key, path: path) else { return false }
            document.set(key, try ValueLines.appending(line, to: old, key: key))
            appended = true
            return true
        }
        return appended
    }

    /// Reads the document, lets `edit` change it, and saves it when `edit` answers that it
    /// changed; one such change at a time, the others waiting their turn.
    ///
    /// The save suspends (its flushes run on the file stores' threads), and the actor lets
    /// other calls in meanwhile: without the turns, a second change would read the file
    /// before the first replaced it and write back a copy without the first's member.
    private func change(_ edit: (inout BlobDocument) throws(StorageError) -> Bool) async throws(StorageError) {
        while changing {
            await withCheckedContinuation { waiting.append($0) }
        }
        changing = true
        defer {
            changing = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        var document = try load()
        if try edit(&document) { try await save(document) }
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
