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
