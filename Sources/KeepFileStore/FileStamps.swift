import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value's stamp under its old name, for the chat index until it asks the store's
/// ``/KeepPorts/StampedStorage`` port instead. A compatibility shim: new code uses ``/KeepPorts/ValueStamp``.
public typealias FileStamp = ValueStamp

extension ValueStamp {
    /// A file store stamp with these fields, as a cache stored them; an `irregularity`
    /// marks a name that is not a regular file. The compatibility shim's form of
    /// `init(size:modified:changeToken:problem:)`.
    public init(size: Int64, modified: Int64, inode: UInt64, irregularity: String? = nil) {
        self.init(size: size, modified: modified, changeToken: inode, problem: irregularity)
    }

    /// The file's inode, for a stamp of the file store: its change token.
    public var inode: UInt64 { changeToken }

    /// What the name is when it is not a regular file, in words: the stamp's problem.
    public var irregularity: String? { problem }

    /// Whether the name is a regular file, whose stamp a cache may trust.
    public var isRegularFile: Bool { isTrusted }
}

/// The stamps of the file store under a root, read by path: a compatibility shim for the
/// chat index until it asks the store itself (``FileStore/stamps(_:)`` and
/// ``FileStore/stamp(_:)``, the ``/KeepPorts/StampedStorage`` port). Both go through the same seam.
public enum FileStamps {
    /// The stamp of the value `key` of the store under `root`, or `nil` when it has no file
    /// (or an id the store cannot hold).
    public static func read(root: String, _ key: StorageKey) -> FileStamp? {
        guard let name = try? IdEncoding.fileName(for: key, operation: "stat") else { return nil }
        let reader = StampReader(calls: POSIXFileSystem(), threads: .shared)
        return try? reader.stamp(name, in: FileStore.directory(root, key.namespace))
    }

    /// The stamp of each id in `namespace` of the store under `root` (see ``FileStore``),
    /// as ``FileStore/stamps(_:)`` answers it, the stats split between up to `threads` of
    /// the file stores' threads.
    public static func read(
        root: String, _ namespace: Namespace, threads: Int = cores
    ) async throws(StorageError) -> [String: FileStamp] {
        try await StampReader(calls: POSIXFileSystem(), threads: .shared)
            .stamps(in: FileStore.directory(root, namespace), parts: threads)
    }

    /// The cores the machine has online: how many threads the stats are split between at
    /// most, by default.
    public static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// How many names each thread takes at least before the stats are split.
    static var splitAbove: Int { StampReader.splitAbove }
}
