import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file adapters' only way to reach the disk: one primitive system call per method.
///
/// The policy (which calls, in which order, what a failure means) lives in the adapters;
/// an implementation only carries each call out. ``POSIXFileSystem`` is the live one;
/// `RecordingFileSystem` (in KeepFileStoreTesting, for tests only) records calls and injects
/// faults; a simulated disk can stand in for both, because nothing above this protocol
/// touches a file any other way.
///
/// Every method either does what it says or throws a ``StorageError`` whose `errno` is the
/// one the system gave (a caller tells "absent" from "broken" by `ENOENT`, never by a
/// second look at the disk). Paths are absolute; names in a listing are bare file names.
package protocol FileSystemCalls: Sendable {
    /// Creates `path` as a new, empty file open for writing, with `mode`; `EEXIST` when
    /// anything (a file, a directory, a symlink) already has that name.
    func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile

    /// Opens the existing file at `path` read-only, never through a symlink.
    func open(_ path: String) throws(StorageError) -> OpenFile

    /// Takes an exclusive advisory lock on `file` without waiting: `false` when another open
    /// file holds it. The lock lasts until `file` is closed.
    func tryLock(_ file: OpenFile) throws(StorageError) -> Bool

    /// How many names `file` has in the file system: 0 once it has been unlinked.
    func linkCount(_ file: OpenFile) throws(StorageError) -> Int

    /// Writes all of `bytes` at the current end of `file`.
    func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError)

    /// Makes `file`'s data durable (`fsync`; `F_FULLFSYNC` on Darwin).
    func flush(_ file: OpenFile) throws(StorageError)

    /// Closes `file`, releasing its lock.
    func close(_ file: OpenFile) throws(StorageError)

    /// Atomically gives the file at `from` the name `to`, replacing whatever had it.
    func rename(_ from: String, to: String) throws(StorageError)

    /// Makes the directory at `path`'s entries durable: names created, renamed or removed.
    func flushDirectory(_ path: String) throws(StorageError)

    /// Removes the name `path`.
    func unlink(_ path: String) throws(StorageError)

    /// Creates the directory `path` with `mode`; `EEXIST` when the name is taken.
    func makeDirectory(_ path: String, mode: mode_t) throws(StorageError)

    /// The names in the directory at `path`, without `.` and `..`, never through a symlink.
    /// A name that is not valid UTF-8 is left out: no name this store writes is one.
    func listDirectory(_ path: String) throws(StorageError) -> [String]

    /// The whole content of the regular file at `path`, never through a symlink; anything
    /// else at that name (a directory, a device, a pipe) is ``StorageError/Code/corrupt``.
    func readFile(_ path: String) throws(StorageError) -> [UInt8]

    /// The whole content of the regular file at `path` as ``readFile(_:)`` reads it, made
    /// into a string in place: `text` sees the bytes read and answers how many of the first
    /// of them are the string (they must be valid UTF-8), or `nil` for none (then so is the
    /// answer). The live disk reads into the string's own storage, so a value is held once,
    /// never as bytes and then again as text.
    func readText(
        _ path: String, _ text: (UnsafeBufferPointer<UInt8>) -> Int?
    ) throws(StorageError) -> String?

    // MARK: Appending

    /// Opens the existing file at `path` for reading and appending: every write lands at the
    /// file's end. Never through a symlink (`ELOOP`), never waiting on a FIFO; `ENOENT` when
    /// there is no such name. The caller checks with ``status(_:)`` that it is a regular file.
    func openForAppending(_ path: String) throws(StorageError) -> OpenFile

    /// What `file` is now: its kind, size, time, inode and link count (`fstat`).
    func status(_ file: OpenFile) throws(StorageError) -> FileStatus

    /// Up to `count` bytes of `file` from byte `offset` on; fewer only at the end of the file.
    func read(_ file: OpenFile, count: Int, at offset: Int) throws(StorageError) -> [UInt8]

    /// Cuts `file` to its first `size` bytes.
    func truncate(_ file: OpenFile, to size: Int) throws(StorageError)

    /// Takes an exclusive advisory lock on `file`, waiting for as long as another open file
    /// holds it. The lock lasts until `file` is closed.
    func lock(_ file: OpenFile) throws(StorageError)

    // MARK: Stamps

    /// Opens the directory at `path` to stat the names in it, never through a symlink.
    func openDirectory(_ path: String) throws(StorageError) -> OpenFile

    /// What the name `name` in `directory` is, a symbolic link described and never followed
    /// (`fstatat` with `AT_SYMLINK_NOFOLLOW`); `ENOENT` when there is no such name.
    func status(of name: String, in directory: OpenFile) throws(StorageError) -> FileStatus
}

// MARK: - Text

extension FileSystemCalls {
    /// ``readFile(_:)``'s bytes, and the string `text` makes of them, copied: the way of a
    /// seam that holds its files in memory (a recorder over another seam, a simulated disk).
    package func readText(
        _ path: String, _ text: (UnsafeBufferPointer<UInt8>) -> Int?
    ) throws(StorageError) -> String? {
        Self.text(of: try readFile(path), text)
    }

    /// The string `text` makes of `bytes` (see ``readText(_:_:)``), copied out of them.
    package static func text(of bytes: [UInt8], _ text: (UnsafeBufferPointer<UInt8>) -> Int?) -> String? {
        bytes.withUnsafeBufferPointer { bytes -> String? in
            guard let count = text(bytes), count >= 0, count <= bytes.count else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
        }
    }
}

/// What a file or a name is, as `fstat` and `fstatat` tell it: the parts the file adapters
/// use, the same on every platform.
package struct FileStatus: Sendable, Hashable {
    /// What kind of thing has the name.
    package enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, fifo, other
    }

    package let kind: Kind
    package let size: Int64
    /// The modification time, in nanoseconds since 1970.
    package let modified: Int64
    package let inode: UInt64
    package let linkCount: Int
    /// The owner's user id; `nil` where the seam cannot say (a simulated disk).
    package let owner: UInt32?
    /// The permission bits (`mode & 0o7777`); `nil` where the seam cannot say.
    package let permissions: UInt32?

    package init(
        kind: Kind, size: Int64, modified: Int64, inode: UInt64, linkCount: Int, owner: UInt32? = nil,
        permissions: UInt32? = nil
    ) {
        self.kind = kind
        self.size = size
        self.modified = modified
        self.inode = inode
        self.linkCount = linkCount
        self.owner = owner
        self.permissions = permissions
    }

    /// Why a name of this kind holds no value, in words; `nil` for a regular file.
    package var irregularity: String? {
        switch kind {
        case .regular: nil
        case .symbolicLink: "it is a symbolic link, not a file"
        case .directory: "it is a directory, not a file"
        case .fifo: "it is a FIFO, not a file"
        case .other: "it is not a regular file"
        }
    }
}

/// A file opened through the seam: the descriptor (or a simulated disk's handle) and the
/// path it was opened at, so every later error can name the file.
package struct OpenFile: Sendable, Hashable {
    package let descriptor: Int32
    package let path: String

    package init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }
}
