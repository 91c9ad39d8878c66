import KeepPorts

/// A deliberately broken ``/KeepPorts/StoragePort``, one flaw at a time, to prove the storage contract
/// catches each way an adapter can go wrong.
///
/// Every flaw is a mistake a real adapter has made or could make; the contract must fail
/// on exactly the case named by ``StorageFlaw/breaks`` and pass every other case.
public actor BrokenStorage: StoragePort {
    private let flaw: StorageFlaw
    /// What each namespace's directory would list: ids, plus leftover temp names.
    private var listing: [Namespace: Set<String>] = [:]
    /// Values by namespace and id; by id alone when namespaces collide.
    private var values: [String: String] = [:]
    /// With `staleBytes`, the bytes `readUTF8` read first of each key, kept for good.
    private var bytesCache: [StorageKey: [UInt8]] = [:]

    /// An empty store with `flaw`, and otherwise correct.
    public init(_ flaw: StorageFlaw) {
        self.flaw = flaw
    }

    /// As the contract asks, except as the flaw says: with `missingIsUndefined` a key in a
    /// namespace never written throws instead of reading as `nil`; with `namespacesCollide`
    /// or `idsFoldedToLowerCase` two keys read one value.
    public func read(_ key: StorageKey) throws(StorageError) -> String? {
        let id = try check(key, "read")
        if flaw == .missingIsUndefined, listing[key.namespace] == nil {
            // A file store that opens the file in a namespace directory not yet created.
            throw .system("open", path: "store/\(key.namespace.rawValue)/\(id)", errno: 2)
        }
        return values[slot(key.namespace, id)]
    }

    /// As the contract asks (the bytes of `read`), except with `staleBytes`: the bytes it
    /// first read of a key, whatever was written or removed since.
    public func readUTF8(_ key: StorageKey) throws(StorageError) -> [UInt8]? {
        guard flaw == .staleBytes else { return try read(key).map { Array($0.utf8) } }
        if let cached = bytesCache[key] { return cached }
        let bytes = try read(key).map { Array($0.utf8) }
        if let bytes { bytesCache[key] = bytes }
        return bytes
    }

    /// As the contract asks, except as the flaw says: an empty value stored as nothing, a
    /// value written in visible pieces, a stale copy written back, a temp name left listed,
    /// or two keys sharing one value.
    public func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        let id = try check(key, "write")
        listing[key.namespace, default: []].insert(id)
        if flaw == .tempFileListed {
            // A store that leaves its temp file behind and does not filter it out.
            listing[key.namespace, default: []].insert(".tmp-\(id)")
        }
        if flaw == .emptyIsAbsent, value.isEmpty {
            // `value || nil`: an empty string stored as nothing.
            values[slot(key.namespace, id)] = nil
            return
        }
        if flaw == .tornWrite {
            // A write in place, in chunks, that a reader can see halfway.
            let bytes = Array(value.utf8)
            var end = 0
            repeat {
                end = min(end + 4096, bytes.count)
                values[slot(key.namespace, id)] = String(decoding: bytes[..<end], as: UTF8.self)
                await Task.yield()
            } while end < bytes.count
            return
        }
        if flaw == .lostUpdate {
            // A whole-blob store that reads the document, suspends (to flush, say), and
            // writes back its stale copy: another write made meanwhile is lost.
            var document = values
            await Task.yield()
            document[slot(key.namespace, id)] = value
            values = document
            return
        }
        values[slot(key.namespace, id)] = value
    }

    /// As the contract asks, except with `removeAbsentThrows`: removing an absent key
    /// throws.
    public func remove(_ key: StorageKey) throws(StorageError) {
        let id = try check(key, "remove")
        if flaw == .removeAbsentThrows, values[slot(key.namespace, id)] == nil {
            throw .system("unlink", path: "store/\(key.namespace.rawValue)/\(id)", errno: 2)
        }
        values[slot(key.namespace, id)] = nil
        listing[key.namespace]?.remove(id)
    }

    /// Every id written, and with `tempFileListed` a temp name too.
    public func listIds(_ namespace: Namespace) -> [String] {
        Array(listing[namespace] ?? [])
    }

    /// As the contract asks, except with `clearCrossesNamespaces`: every namespace is
    /// emptied.
    public func clear(_ namespace: Namespace) {
        let cleared = flaw == .clearCrossesNamespaces ? Namespace.allCases : [namespace]
        for namespace in cleared {
            for id in listing[namespace] ?? [] { values[slot(namespace, id)] = nil }
            listing[namespace] = []
        }
    }

    /// The id as this flawed store would use it, after refusing the empty id.
    private func check(_ key: StorageKey, _ operation: String) throws(StorageError) -> String {
        if key.id.isEmpty {
            throw .invalidId(key.id, in: key.namespace, operation: operation, reason: "an id cannot be empty")
        }
        return flaw == .idsFoldedToLowerCase ? key.id.lowercased() : key.id
    }

    /// Where a value lives: its namespace and id, or its id alone when namespaces collide.
    private func slot(_ namespace: Namespace, _ id: String) -> String {
        flaw == .namespacesCollide ? id : "\(namespace.rawValue)/\(id)"
    }
}

/// The ways ``BrokenStorage`` can be broken, named as the break modes of the specification.
public enum StorageFlaw: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A read in a namespace never written to throws instead of answering nil.
    case missingIsUndefined = "storage_missing_is_undefined"
    /// Values are keyed by id alone, so the same id in two namespaces is one value.
    case namespacesCollide = "storage_namespaces_collide"
    /// An empty string is stored as nothing.
    case emptyIsAbsent = "storage_empty_is_absent"
    /// A write lands in place, piece by piece, visible to a concurrent reader.
    case tornWrite = "storage_torn_write"
    /// Ids are folded to lower case, as on a case-insensitive file system.
    case idsFoldedToLowerCase = "storage_ids_case_folded"
    /// A temp file left next to the values is listed as an id.
    case tempFileListed = "storage_temp_listed"
    /// Removing an absent key throws.
    case removeAbsentThrows = "storage_remove_absent_throws"
    /// Clearing one namespace clears them all.
    case clearCrossesNamespaces = "storage_clear_crosses_namespaces"
    /// A read-change-write that suspends between its read and its write, so a concurrent
    /// write to another key is lost.
    case lostUpdate = "storage_lost_update"
    /// `readUTF8` answers from a cache of the bytes it read first, which no write or removal
    /// empties: the old value's bytes after a new one was written.
    case staleBytes = "storage_bytes_stale"

    /// The name of the one contract case this flaw must fail.
    public var breaks: String {
        switch self {
        case .missingIsUndefined: StorageContract.missingIsNil.name
        case .namespacesCollide: StorageContract.namespacesNeverCollide.name
        case .emptyIsAbsent: StorageContract.emptyStringIsAValue.name
        case .tornWrite: StorageContract.concurrentReaderNeverSeesATornValue.name
        case .idsFoldedToLowerCase: StorageContract.idsDifferingOnlyInCaseAreDifferent.name
        case .tempFileListed: StorageContract.listIdsIsExactlyTheIdsWritten.name
        case .removeAbsentThrows: StorageContract.removingAnAbsentKeySucceeds.name
        case .clearCrossesNamespaces: StorageContract.clearEmptiesOneNamespaceOnly.name
        case .lostUpdate: StorageContract.concurrentWritesToDistinctKeysAllSurvive.name
        case .staleBytes: StorageContract.bytesAreTheValuesUTF8.name
        }
    }

    public var description: String { rawValue }
}
