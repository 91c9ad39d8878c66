import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The durable ``/KeepPorts/StoragePort``: one file per key, at `<root>/store/<namespace>/<encoded id>`.
///
/// A file holds the value's UTF-8 bytes and nothing else (`cat` shows it). Ids are encoded
/// as `IdEncoding` says: `a-z 0-9 - _` literal, every other byte `~` and two hex digits.
///
/// What it promises:
/// - `write` is atomic and durable: a concurrent `read` sees the whole old value or the
///   whole new one; when `write` returns, the value survives a crash and, on a disk that
///   honours flushes, a power cut. A `write` that throws acknowledged nothing: when it
///   failed before the rename the old value is intact; after it (closing the temp,
///   flushing the directory) the key holds the whole old or the whole new value. Writing
///   one key never touches another key's file.
/// - `read` of a key never written is `nil`; a file that is not UTF-8, or that is not a
///   regular file (a symbolic link, never followed; a directory; a pipe), is
///   ``/KeepPorts/StorageError/Code/corrupt``. An empty file is the empty string. A file whose only bytes
///   that are not UTF-8 are in its unfinished last line (half a character a power cut left
///   mid-append) reads as its finished lines, which is what the next append keeps.
/// - Directories are made only by `write`, only for the four namespaces, mode 0700; files
///   are 0600. `read`, `listIds`, `remove` and `clear` never create anything.
/// - `listIds` lists only names that are canonical encodings: never a temp file, never a
///   file someone else put there.
/// - `append` adds a line in place, as atomically and durably as `write` replaces a value
///   (see `LineAppender`): the file opened (never through a symlink; no file, no value, and
///   nothing created), locked, an unfinished last line cut, the line written at the end
///   and the file flushed. A crash or a power cut mid-append leaves the old value with at
///   most an unfinished last line; a failed flush cuts the line back and throws. A write
///   takes the same lock on the file it replaces, so a line never lands in a file a
///   rename has just replaced.
/// - Stamps (``/KeepPorts/StampedStorage``): size, modification time and inode of each value's file, by
///   one `fstatat` per name, never a byte read; a name that is not a regular file, or that
///   cannot be stat'ed, is that key's problem.
///
/// It refuses, with ``/KeepPorts/StorageError/Code/invalidId``, an empty id and one whose file name
/// would pass 255 bytes. A refused disk (`EACCES`, `EPERM`, `EROFS`) is `.unavailable`, a
/// full one (`ENOSPC`, `EDQUOT`) `.full`; every error names the operation, the path and the
/// errno. Opening a store removes the temp files of writers that died, never a live one's.
///
/// The calls that flush or wait (`write`, `append`, `remove`, `clear`) and the stamps go
/// through the file stores' own threads (`IOThreads`): at most one flush at a time runs on
/// its caller's thread, which may be one of Swift's cooperative threads, and any other runs
/// on a thread of the pool's, its caller suspended; `read` and `listIds`, which do not
/// flush, run on the caller's. Writes in flight at the same time in one namespace share the
/// directory's flush (group commit, see `GroupCommit`): a write waits, suspended, for the
/// first flush that begins after its rename, so none returns before its own rename is
/// durable, and a lone write flushes at once.
public struct FileStore: StampedStorage {
    /// The directory the store lives under; values are in its `store` subdirectory.
    public let root: String
    private let writer: AtomicWriter
    /// The seam every call of this store goes through.
    package var calls: any FileSystemCalls { writer.calls }

    /// The store under `root` (an absolute path; see ``DataRoot``), on the real disk.
    ///
    /// Creates nothing. Removes temp files left by writers that died; throws when a
    /// namespace directory exists but cannot be listed, when `root` is not absolute, and
    /// when the data root, `store` or a namespace directory is not the user's own to change
    /// (another user's, writable by group or others, or a symbolic link: see `Ownership`).
    public init(root: String) throws(StorageError) {
        try self.init(root: root, calls: POSIXFileSystem())
    }

    /// The store under `root`, reaching the disk only through `calls`.
    package init(
        root: String, calls: any FileSystemCalls, flushing: any DirectoryFlushing = GroupCommit()
    ) throws(StorageError) {
        self.root = try DataRoot.checked(root)
        writer = AtomicWriter(calls: calls, flushing: flushing)
        // The data root is yours (see `Ownership`), and so is the way to it: checked before
        // anything under it is used.
        try Ownership.checkAncestors(of: self.root)
        try Ownership.checkDirectories(Self.directories(self.root), calls: calls)
        for namespace in Namespace.allCases {
            try writer.sweep(directory(namespace))
        }
    }

    /// The value in the key's file, or `nil` when there is no file; a file that is not
    /// UTF-8 or not a regular file (a symbolic link is never followed) is `corrupt`.
    /// Creates nothing.
    public func read(_ key: StorageKey) async throws(StorageError) -> String? {
        // Read straight into the string, checked where it lies: the value is held once.
        try value(key) { path throws(StorageError) in try calls.readText(path, Self.textCount) }
    }

    /// The bytes of the value ``read(_:)`` answers, read straight into the array and checked
    /// there as `read` checks them: no string is made of them.
    public func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
        try value(key) { path throws(StorageError) in
            var bytes = try calls.readFile(path)
            guard let count = bytes.withUnsafeBufferPointer(Self.textCount) else { return nil }
            bytes.removeLast(bytes.count - count)
            return bytes
        }
    }

    /// How many of the first of `bytes` (a file's content) are its value: all of them when
    /// they are UTF-8. A power cut in the middle of an append can leave half a character in
    /// the value's unfinished last line (a sector of it written, the next one zeros); that
    /// line is no line (see `ValueLines`), so the value is its finished lines, when they are
    /// text. `nil` when they are not.
    private static func textCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if String.isValidUTF8(bytes) { return bytes.count }
        let finished = ValueLines.finishedCount(bytes)
        guard finished > 0, String.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[..<finished])) else { return nil }
        return finished
    }

    /// What `read` (the key's file path) answers, `nil` when there is no file; `read`
    /// answering `nil` is a file that is not UTF-8. Creates nothing.
    private func value<Value>(
        _ key: StorageKey, _ read: (String) throws(StorageError) -> Value?
    ) throws(StorageError) -> Value? {
        let path = try self.path(key, "read")
        let value: Value?
        do throws(StorageError) {
            value = try read(path)
        } catch let error where error.errno == ENOENT {
            return nil  // no file, or no namespace directory yet: never written
        } catch let error where error.errno == ELOOP {
            // O_NOFOLLOW refused a symbolic link at the key's name: it is never followed, so
            // the value is this file's problem (as a directory or a pipe there is).
            throw StorageError(
                code: .corrupt, operation: "read", path: path, errno: ELOOP,
                reason: "it is a symbolic link, which keep never follows")
        }
        guard let value else {
            throw StorageError(code: .corrupt, operation: "read", path: path, reason: "the file is not valid UTF-8")
        }
        return value
    }

    /// Replaces the key's file durably: a temp file written and flushed, renamed over the
    /// old one, the directory flushed. When it returns the value survives a crash; when it
    /// throws, the key holds the whole old or the whole new value.
    public func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        let name = try IdEncoding.fileName(for: key, operation: "write")
        try await writer.replace(in: directory(key.namespace), name: name, bytes: Array(value.utf8))
    }

    /// Removes the key's file and flushes its directory, so a power cut cannot bring the
    /// value back; an absent key is fine.
    public func remove(_ key: StorageKey) async throws(StorageError) {
        let path = try self.path(key, "remove")
        let directory = directory(key.namespace)
        try await writer.threads.run { [calls] () throws(StorageError) in
            do throws(StorageError) {
                try calls.unlink(path)
            } catch let error where error.errno == ENOENT {
                return  // absent already: nothing to remove, nothing to flush
            }
            // The removal durable: without this a power cut can bring the value back.
            try calls.flushDirectory(directory)
        }
    }

    /// Adds `line` and a newline at the end of the key's file, in place and durably, after
    /// cutting an unfinished last line; `false`, creating nothing, when the key has no file.
    /// When it returns the line survives a crash and, on a disk that honours flushes, a
    /// power cut; when it throws, the value is as it was (with at most an unfinished last
    /// line). `line` is given the value's length in bytes once the cut is made.
    @discardableResult
    public func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        let path = try self.path(key, "append")
        let appender = LineAppender(calls: calls)
        guard let opened = try await writer.threads.run({ () throws(StorageError) in try appender.open(path) }) else {
            return false
        }
        // The line is made here, on the caller's executor, once its offset is known; the
        // file stays locked meanwhile.
        let text = line(opened.finished)
        do throws(StorageError) {
            try ValueLines.check(text, for: key)
        } catch {
            appender.abandon(opened)
            throw error
        }
        var bytes = Array(text.utf8)
        bytes.append(ValueLines.newline)
        try await writer.threads.run { [bytes] () throws(StorageError) in try appender.add(bytes, to: opened) }
        return true
    }

    /// The stamp of every id stored in `namespace`: one `fstatat` per canonical name, split
    /// between up to one of the file stores' threads per core for a large namespace.
    public func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        try await StampReader(calls: calls, threads: writer.threads)
            .stamps(in: directory(namespace), parts: FileStamps.cores)
    }

    /// The stamp of the key's file, or `nil` when it has none.
    public func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? {
        let name = try IdEncoding.fileName(for: key, operation: "stamp")
        let reader = StampReader(calls: calls, threads: writer.threads)
        let directory = directory(key.namespace)
        return try await writer.threads.run { () throws(StorageError) in try reader.stamp(name, in: directory) }
    }

    /// The ids stored in `namespace`, decoded from the canonical file names only: never a
    /// temp file, never a file someone else put there. Creates nothing.
    public func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        try names(in: namespace).map(\.id)
    }

    /// Removes every value of `namespace` and flushes its directory; the other namespaces
    /// are not touched.
    public func clear(_ namespace: Namespace) async throws(StorageError) {
        let directory = directory(namespace)
        let entries = try names(in: namespace)
        guard !entries.isEmpty else { return }
        try await writer.threads.run { [calls] () throws(StorageError) in
            for entry in entries {
                do throws(StorageError) {
                    try calls.unlink(AtomicWriter.join(directory, entry.name))
                } catch let error where error.errno == ENOENT {
                    continue  // removed meanwhile by someone else
                }
            }
            // The removals durable, with one flush for all of them.
            try calls.flushDirectory(directory)
        }
    }

    /// The ids in `namespace` with their file names. Temp files, and any name that is not a
    /// canonical encoding, are not ids and are left out (and left alone).
    private func names(in namespace: Namespace) throws(StorageError) -> [(id: String, name: String)] {
        let names: [String]
        do throws(StorageError) {
            names = try calls.listDirectory(directory(namespace))
        } catch let error where error.errno == ENOENT {
            return []  // nothing was ever written in this namespace
        }
        return names.compactMap { name in IdEncoding.id(fromFileName: name).map { (id: $0, name: name) } }
    }

    private func directory(_ namespace: Namespace) -> String {
        Self.directory(root, namespace)
    }

    /// Every directory the store under `root` keeps data in: the root, `store` and each
    /// namespace's, in that order (what the ownership rule checks).
    package static func directories(_ root: String) -> [String] {
        [root, AtomicWriter.join(root, "store")] + Namespace.allCases.map { directory(root, $0) }
    }

    /// The directory of `namespace` in the store under `root`.
    static func directory(_ root: String, _ namespace: Namespace) -> String {
        AtomicWriter.join(AtomicWriter.join(root, "store"), namespace.rawValue)
    }

    private func path(_ key: StorageKey, _ operation: String) throws(StorageError) -> String {
        AtomicWriter.join(directory(key.namespace), try IdEncoding.fileName(for: key, operation: operation))
    }
}
