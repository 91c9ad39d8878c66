import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a cache needs to know whether a value's file changed since it last looked: its
/// size, modification time and inode, read by one `lstat` per file and never a byte of it.
///
/// Every write of a ``FileStore`` renames a new file into place, so a write changes the
/// inode even when the size and the time stay the same; a file edited in place changes
/// its time. A name that is not a regular file (a symlink, a directory, a FIFO) has no
/// stamp a cache may trust, and no value to read: ``irregularity`` says what it is.
public struct FileStamp: Sendable, Hashable {
    /// The file's size in bytes.
    public let size: Int64
    /// The modification time, in nanoseconds since 1970.
    public let modified: Int64
    /// The file's inode number: a new one at every write, since a write renames a new file
    /// into place.
    public let inode: UInt64
    /// What the name is when it is not a regular file, in words; `nil` for a regular file.
    public let irregularity: String?

    /// A stamp with these fields, as a cache stored them; an `irregularity` marks a name
    /// that is not a regular file.
    public init(size: Int64, modified: Int64, inode: UInt64, irregularity: String? = nil) {
        self.size = size
        self.modified = modified
        self.inode = inode
        self.irregularity = irregularity
    }

    /// Whether the name is a regular file, whose stamp a cache may trust.
    public var isRegularFile: Bool { irregularity == nil }

    /// `mode`'s file type in words when it is not a regular file.
    static func irregularity(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: "it is a symbolic link, not a file"
        case S_IFDIR: "it is a directory, not a file"
        case S_IFIFO: "it is a FIFO, not a file"
        default: "it is not a regular file"
        }
    }
}

/// The ``FileStamp`` of every value in one namespace of the file store under a root: the
/// namespace directory listed once, each canonical name `lstat`ed (never followed).
public enum FileStamps {
    /// The stamp of the value `key` of the store under `root`, or `nil` when it has no file
    /// (or an id the store cannot hold).
    public static func read(root: String, _ key: StorageKey) -> FileStamp? {
        guard let name = try? IdEncoding.fileName(for: key, operation: "stat") else { return nil }
        var info = stat()
        guard lstat(directory(root, key.namespace) + "/" + name, &info) == 0 else { return nil }
        return stamp(info)
    }

    /// Whether `name` is its own id: `a-z 0-9 - _` only, so nothing to decode (the
    /// encoding keeps those bytes as they are and escapes every other byte).
    private static func isLiteral(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= IdEncoding.maximumNameLength
            && name.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d || $0 == 0x5f
            }
    }

    private static func directory(_ root: String, _ namespace: Namespace) -> String {
        root + (root.hasSuffix("/") ? "" : "/") + "store/" + namespace.rawValue
    }

    private static func stamp(_ info: stat) -> FileStamp {
        // The modification time's field is named differently on Darwin.
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        return FileStamp(
            size: Int64(info.st_size), modified: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec),
            inode: UInt64(info.st_ino), irregularity: FileStamp.irregularity(info.st_mode))
    }

    /// The stamp of each id in `namespace` of the store under `root` (see ``FileStore``),
    /// by id. A missing namespace directory is an empty namespace. A name that vanishes
    /// between the listing and its `lstat` is left out; one that cannot be `lstat`ed for
    /// another reason is kept, with the failure as its irregularity.
    /// Throws when the directory exists but cannot be listed.
    ///
    /// Off Swift's shared pool: the listing and the `lstat`s run on the file stores' own
    /// threads, the `lstat`s of a large namespace split between up to `threads` of them
    /// (they cost the kernel's time, which more cores share; the default is one a core).
    public static func read(
        root: String, _ namespace: Namespace, threads: Int = cores
    ) async throws(StorageError) -> [String: FileStamp] {
        let directory = directory(root, namespace)
        let names = try await IOThreads.shared.run { () throws(StorageError) in try Self.names(in: directory) }
        let parts = max(1, min(threads, names.count / splitAbove))
        guard parts > 1 else {
            return try await IOThreads.shared.run { () throws(StorageError) in
                try Self.stamps(of: names[...], in: directory, room: names.count)
            }
        }
        // Each part's stamps by themselves; the first part's dictionary is made large enough
        // for all of them, and the others are merged into it.
        let results = await withTaskGroup(of: (Int, Result<[String: FileStamp], StorageError>).self) { group in
            for part in 0..<parts {
                let slice = names[(names.count * part / parts)..<(names.count * (part + 1) / parts)]
                let room = part == 0 ? names.count : slice.count
                group.addTask {
                    (
                        part,
                        await outcome { () throws(StorageError) in try Self.stamps(of: slice, in: directory, room: room)
                        }
                    )
                }
            }
            var results = [Result<[String: FileStamp], StorageError>?](repeating: nil, count: parts)
            for await (part, result) in group { results[part] = result }
            return results.compactMap { $0 }
        }
        var all = try results[0].get()
        for result in results.dropFirst() { all.merge(try result.get()) { kept, _ in kept } }
        return all
    }

    /// How many names each thread takes at least before the `lstat`s are split: below
    /// it, handing work to a second thread costs more than it saves.
    static let splitAbove = 512

    /// The cores the machine has online: how many threads the `lstat`s are split between
    /// at most, by default.
    public static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// `body` run on the file stores' threads, its error kept as a value (a task group's
    /// child would forget its type).
    private static func outcome<Value: Sendable>(
        _ body: @escaping @Sendable () throws(StorageError) -> Value
    ) async -> Result<Value, StorageError> {
        do {
            return .success(try await IOThreads.shared.run(body))
        } catch {
            return .failure(error)
        }
    }

    /// The names in `directory` (none when it is missing), listed as the file store lists
    /// them: a symbolic link planted at the directory's name is refused, never followed.
    private static func names(in directory: String) throws(StorageError) -> [String] {
        do {
            return try POSIXFileSystem().listDirectory(directory)
        } catch let error where error.errno == ENOENT {
            return []
        }
    }

    /// The stamps of `names` in `directory`, by id; names that are no id of the store's are
    /// left out.
    private static func stamps(
        of names: ArraySlice<String>, in directory: String, room: Int
    ) throws(StorageError) -> [String: FileStamp] {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let failure = errno
            if failure == ENOENT { return [:] }
            throw .system("open", path: directory, errno: failure)
        }
        defer { close(descriptor) }
        var stamps: [String: FileStamp] = [:]
        stamps.reserveCapacity(room)
        for name in names {
            guard let id = isLiteral(name) ? name : IdEncoding.id(fromFileName: name) else { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }
                let failure = errno
                stamps[id] = FileStamp(
                    size: -1, modified: 0, inode: 0,
                    irregularity: StorageError.system("lstat", path: name, errno: failure).description)
                continue
            }
            stamps[id] = stamp(info)
        }
        return stamps
    }
}
