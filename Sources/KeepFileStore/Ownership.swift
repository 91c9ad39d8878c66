import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The data root is yours: the rule that keeps another user of the machine out of what keep
/// keeps. A directory keep keeps data in (the data root, `store/`, each namespace), a value's
/// file, the settings file and kept data's files are used only when they belong to the user
/// keep runs as (its effective user id) and neither group nor others may write them. Anything
/// else is refused, in one line naming the path and its owner or its mode, before keep reads
/// it or writes beside it: a file another user can change can be swapped for one of their
/// choosing, and a directory others may write can gain one.
///
/// A directory is opened without following a symbolic link (`O_NOFOLLOW | O_DIRECTORY`) and
/// checked with `fstat` on that descriptor (``checkDirectories(_:calls:)``), so what is
/// checked is what was opened; a value's file is checked on the descriptor it is read
/// through (`FileStore.read`). A name that is not there yet is fine: keep makes it, 0700 or
/// 0600, its own.
///
/// The directories are used by path after the check, so the way to the data root must be
/// the user's too: every directory above it belongs to the user or to root and no one else
/// may write it unless it is sticky (``checkAncestors(of:)``). Then no other user can move
/// the root, `store/` or a namespace away and put one of theirs in its place between the
/// check and the use: only the user and root can change any directory on the way.
package enum Ownership {
    /// The user keep runs as.
    package static var user: UInt32 { UInt32(geteuid()) }

    /// The refusal for `path` with `status`, or `nil` when it is the user's own and only
    /// theirs to change (or the seam cannot say). A directory's refusal is
    /// `StorageError.Code.unavailable` (nothing under it is used); a file's is
    /// `StorageError.Code.corrupt`, that one file's problem, as a symbolic link at its name is.
    package static func refusal(_ path: String, _ status: FileStatus, user: UInt32 = user) -> StorageError? {
        let why: String
        if let owner = status.owner, owner != user {
            why = "it belongs to user \(owner), not to user \(user), whom keep runs as"
        } else if let permissions = status.permissions, permissions & 0o022 != 0 {
            why = "group or others may change it (mode \(String(permissions, radix: 8)))"
        } else {
            return nil
        }
        return StorageError(
            code: status.kind == .directory ? .unavailable : .corrupt, operation: "check owner", path: path,
            reason: "\(why); keep keeps data only where no one else can change it (make it yours with chown and "
                + "chmod go-w, or choose another data root)")
    }

    /// Checks each of `directories` that exists, opened through `calls` without following a
    /// link and looked at with `fstat` on the descriptor; one that is not there is skipped.
    /// Throws the first refusal, or the error of an open that failed for another reason (a
    /// symbolic link among them: `ELOOP` or `ENOTDIR`).
    package static func checkDirectories(_ directories: [String], calls: any FileSystemCalls) throws(StorageError) {
        for directory in directories {
            let opened: OpenFile
            do throws(StorageError) {
                opened = try calls.openDirectory(directory)
            } catch let error where error.errno == ENOENT {
                continue
            }
            let status: FileStatus
            do throws(StorageError) {
                status = try calls.status(opened)
            } catch {
                try? calls.close(opened)
                throw error
            }
            try? calls.close(opened)
            if let refusal = refusal(directory, status) { throw refusal }
        }
    }

    /// The refusal for `directory` (with `status`), a directory on the way to the data root,
    /// or `nil` when no other user can change what is in it: it belongs to the user or to
    /// root, and neither group nor others may write it unless it is sticky (as `/tmp` is,
    /// where only an entry's owner may move or remove it).
    package static func ancestorRefusal(
        _ directory: String, _ status: FileStatus, user: UInt32 = user
    ) -> StorageError? {
        let why: String
        if let owner = status.owner, owner != user, owner != 0 {
            why = "belongs to user \(owner)"
        } else if let permissions = status.permissions, permissions & 0o022 != 0, permissions & 0o1000 == 0 {
            why = "group or others may change (mode \(String(permissions, radix: 8)), not sticky)"
        } else {
            return nil
        }
        return StorageError(
            code: .unavailable, operation: "check the way to the data root", path: directory,
            reason: "the data root is under this directory, which \(why): another user could move the data root "
                + "away and put one of theirs in its place; keep keeps data only where no one else can change the way "
                + "to it (chmod go-w or +t, or choose another data root)")
    }

    /// Checks every directory on the way to `root`, the data root: from the first that
    /// exists above it (as `realpath` resolves it, so a symbolic link on the way is checked
    /// where it leads) up to `/`, each by ``ancestorRefusal(_:_:user:)``. Path checks of
    /// the root itself (``checkDirectories(_:calls:)``) hold only if no one else can swap
    /// the root for another between the check and the use; this makes sure no one can.
    package static func checkAncestors(of root: String) throws(StorageError) {
        var above = AtomicWriter.parent(of: root)
        var real: String?
        while real == nil {
            guard let resolved = realpath(above, nil) else {
                let error = errno
                guard error == ENOENT || error == ENOTDIR, above != "/" else {
                    throw .system("realpath", path: above, errno: error)
                }
                above = AtomicWriter.parent(of: above)
                continue
            }
            real = String(cString: resolved)
            free(resolved)
        }
        var directory = real ?? "/"
        while true {
            var info = stat()
            while stat(directory, &info) != 0 {
                let error = errno
                if error != EINTR { throw .system("stat", path: directory, errno: error) }
            }
            if let refusal = ancestorRefusal(directory, POSIXFileSystem.status(info)) { throw refusal }
            guard directory != "/" else { return }
            directory = AtomicWriter.parent(of: directory)
        }
    }

    /// Checks the file at `path` (through a link, as `stat` sees it), a file keep opens
    /// outside the store (kept data's files, the settings copy, the chat index); a name
    /// that is not there is fine.
    package static func checkFile(_ path: String) throws(StorageError) {
        var info = stat()
        while stat(path, &info) != 0 {
            let error = errno
            if error == EINTR { continue }
            if error == ENOENT { return }
            throw .system("stat", path: path, errno: error)
        }
        if let refusal = refusal(path, POSIXFileSystem.status(info)) { throw refusal }
    }
}
