import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a name in the file system is, found with `lstat` (and `stat` through a symbolic
/// link): asked before keep opens a file that is not the store's, so a special file planted
/// at that name is refused before any open that could block.
///
/// Opening a FIFO for reading waits for a writer; reading one opened for writing too (as
/// SQLite and `flock` open their files) waits for data that never comes; a device may do
/// anything on open or read (`/dev/zero` never ends); a socket cannot be opened at all.
/// None of them is a file keep wrote, so ``refuseUnsafe(_:)`` refuses each one in plain
/// words, naming the path and what is there, and keep never opens it. The store's own
/// values need no such question: the file store opens them `O_NONBLOCK` and checks the
/// descriptor with `fstat` (`POSIXFileSystem`).
///
/// This asks by name, a moment before the open: it stops a file planted before keep runs,
/// which is what a special file at a name keep uses always is, not one swapped in between
/// the two calls by someone who may write the directory (the data root's ownership rule is
/// what keeps others out of it).
package enum FileKind: Sendable, Equatable, CustomStringConvertible {
    case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, unknown

    /// The kind of the name `path` itself (a symbolic link is ``symbolicLink``, never
    /// followed), or with `following`, of what a link there leads to (a name the user gave);
    /// `nil` when nothing has that name (or the link leads nowhere). Throws a `StorageError`
    /// naming `lstat` or `stat`, the path and the errno when the name cannot be looked at
    /// (`EACCES` on a directory on the way, `ENOTDIR`).
    package static func of(_ path: String, following: Bool = false) throws(StorageError) -> FileKind? {
        try look(path, following: following)
    }

    /// Refuses each of `paths` that names something other than a regular file, or a link
    /// to one: a FIFO, a device, a socket, a directory, or a link to any of them; and a file
    /// that is not the user's own to change (``Ownership``: another user's, or one group or
    /// others may write). A name that is not there, or whose link leads nowhere, is fine (it
    /// will be created).
    ///
    /// Throws ``KeepPorts/StorageError/Code/corrupt`` (that one file's problem) whose
    /// description says, in one line, what is at the path and that keep does not open it.
    package static func refuseUnsafe(_ paths: String...) throws(StorageError) {
        for path in paths {
            guard var kind = try of(path) else { continue }
            if kind == .symbolicLink {
                guard let target = try look(path, following: true) else { continue }
                kind = target
            }
            guard kind == .regular else { throw refusal(path, kind) }
            try Ownership.checkFile(path)
        }
    }

    /// The error for `kind` found at `path`, a name keep was about to open.
    package static func refusal(_ path: String, _ kind: FileKind) -> StorageError {
        StorageError(
            code: .corrupt, operation: "open", path: path,
            reason: "it is \(kind), not a file; keep does not open it (reading one can wait for ever)")
    }

    /// In words, with its article: `a named pipe (FIFO)`.
    package var description: String {
        switch self {
        case .regular: "a file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .fifo: "a named pipe (FIFO)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .unknown: "something of an unknown kind"
        }
    }

    /// `lstat(2)`, or `stat(2)` when `following`, retried on `EINTR`; `ENOENT` is `nil`.
    private static func look(_ path: String, following: Bool) throws(StorageError) -> FileKind? {
        var status = stat()
        while (following ? stat(path, &status) : lstat(path, &status)) != 0 {
            let error = errno
            if error == EINTR { continue }
            if error == ENOENT { return nil }
            throw .system(following ? "stat" : "lstat", path: path, errno: error)
        }
        return kind(status.st_mode)
    }

    /// The kind `mode`'s file-type bits say.
    package static func kind(_ mode: mode_t) -> FileKind {
        switch mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        case S_IFIFO: .fifo
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFSOCK: .socket
        default: .unknown
        }
    }
}
