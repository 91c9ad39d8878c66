import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one durable, atomic way both file adapters replace a file, and the clean-up of what
/// a writer that died mid-write left behind.
///
/// `replace` writes the new bytes to a temp file beside the target, flushes them, renames
/// the temp over the target and flushes the directory. A reader sees the whole old file or
/// the whole new one; when `replace` returns, both the bytes and the name are durable (on a
/// disk that honours flushes). When it throws, nothing was acknowledged, the old file is
/// intact, and the temp file is gone (or, if the process died, left for `sweep`). Writes
/// renamed into one directory at the same time share its flush (``GroupCommit``), and each
/// still returns only after a flush that began after its own rename.
///
/// Temp files are named `.keep-tmp-` and 32 random hex digits: a leading `.` no encoded id
/// has, and a name no two writers share (`O_EXCL` refuses a clash). A writer holds an
/// exclusive `flock` on its temp file from just after it creates it until after the
/// rename, so `sweep` can tell a live writer's temp (locked) from a dead one's (the kernel
/// released its lock when the process died). Just before the rename it also locks the file
/// it replaces (``NameLock``, shared with the appender), so an append under way finishes
/// in the file before it loses its name.
///
/// The blocking steps of `replace` (from the temp's creation to the rename, and the
/// directory's flush) go through ``IOThreads``: on the caller's thread when no other such
/// step is running on a caller's, else on a thread of the pool's, the caller suspended.
struct AtomicWriter: Sendable {
    let calls: any FileSystemCalls
    /// How concurrent writes in one directory share its flush.
    let flushing: any DirectoryFlushing
    /// Where the calls that flush are made.
    let threads: IOThreads

    init(calls: any FileSystemCalls, flushing: any DirectoryFlushing = GroupCommit(), threads: IOThreads = .shared) {
        self.calls = calls
        self.flushing = flushing
        self.threads = threads
    }

    static let tempPrefix = ".keep-tmp-"
    static let directoryMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600
    /// How many fresh temp names a write tries before giving up: each retry means a name
    /// clash or a sweep taking the name, both rare, so a handful is plenty.
    private static let attempts = 8

    /// Durably replaces `directory/name` with `bytes`, creating `directory` (and any missing
    /// parent, each 0700) first when it does not exist.
    func replace(in directory: String, name: String, bytes: [UInt8]) async throws(StorageError) {
        try await threads.run { [self] () throws(StorageError) in
            do throws(StorageError) {
                try renameIntoPlace(in: directory, name: name, bytes: bytes)
            } catch {
                throw Self.naming(Self.join(directory, name), error)
            }
        }
        // 7. The rename durable: without this a power cut can bring the old name back. The
        //    flush is shared with the writes renamed into this directory at the same time, and
        //    only one that began after this rename counts (see `GroupCommit`).
        try await flushing.flushed(directory) { [calls, threads] () async throws(StorageError) in
            try await threads.run { () throws(StorageError) in try calls.flushDirectory(directory) }
        }
    }

    /// Steps 1 to 6 of `replace`: the new bytes in a temp file, flushed, renamed over the
    /// target; everything but the directory's flush. Blocks in system calls.
    private func renameIntoPlace(in directory: String, name: String, bytes: [UInt8]) throws(StorageError) {
        let target = Self.join(directory, name)
        var createdDirectory = false
        for _ in 0..<Self.attempts {
            let temp = Self.join(directory, Self.tempPrefix + Self.randomSuffix())
            let file: OpenFile
            do throws(StorageError) {
                // 1. A new temp file beside the target: the bytes never land over the old value.
                file = try calls.create(temp, mode: Self.fileMode)
            } catch let error where error.errno == ENOENT && !createdDirectory {
                try makeDirectory(directory)
                createdDirectory = true
                continue
            } catch let error where error.errno == EEXIST {
                continue  // another writer has this name: draw another
            }
            guard try claim(file) else { continue }
            do throws(StorageError) {
                // 2. Every byte into the temp: a crash from here to the rename leaves the old value whole.
                try calls.write(file, bytes)
                // 3. The temp's data durable before any name points at it: without this a power
                //    cut can persist the rename ahead of the data, a right name on an empty file.
                //    An error here (EIO) is never retried: the page cache may already have
                //    dropped the data, so the temp is abandoned and the write fails.
                try calls.flush(file)
                // 4. The file being replaced locked, when there is one (``NameLock``): an append
                //    under way finishes first, and one that begins after finds the new file, so
                //    no acknowledged line lands in a file that lost its name.
                let replaced = try lockTarget(target)
                defer { if let replaced { try? calls.close(replaced) } }  // read-only; releases the lock
                // 5. The atomic switch: a reader sees the whole old file or the whole new one.
                try calls.rename(temp, to: target)
            } catch {
                abandon(file, temp)
                throw error
            }
            // 6. Closed only now, so the lock covered the temp until it stopped being one; its
            //    data is already flushed, so a close error says nothing about the value.
            try calls.close(file)
            return
        }
        throw StorageError(
            code: .io, operation: "create", path: directory,
            reason: "no unclaimed temp file name after \(Self.attempts) tries")
    }

    /// The file at `target`, opened read-only and locked, waiting for an appender to finish;
    /// `nil` when there is none to lock: no file, or a symbolic link (which the rename
    /// replaces, and which no appender opens).
    private func lockTarget(_ target: String) throws(StorageError) -> OpenFile? {
        do throws(StorageError) {
            return try NameLock.hold(target, calls: calls) { (path) throws(StorageError) in try calls.open(path) }?.file
        } catch let error where error.errno == ELOOP {
            return nil
        }
    }

    /// Removes the temp files of writers that died in `directory`, and none of a live one.
    ///
    /// Housekeeping only: temp files are never listed or read as values, so a temp that
    /// cannot be opened, locked or unlinked is left for the next sweep rather than failing
    /// the store. Only a directory that cannot be listed (other than a missing one) throws.
    func sweep(_ directory: String) throws(StorageError) {
        let names: [String]
        do throws(StorageError) {
            names = try calls.listDirectory(directory)
        } catch let error where error.errno == ENOENT {
            return  // nothing was ever written here
        }
        for name in names where name.hasPrefix(Self.tempPrefix) {
            let path = Self.join(directory, name)
            guard let file = try? calls.open(path) else { continue }  // gone, or not ours to open
            defer { try? calls.close(file) }  // read-only; closing releases the lock we took
            // A live writer holds its lock until its rename; a dead one's died with it. A writer
            // between its create and its lock loses the name to us, sees it unlinked, and
            // starts again under a new one (see `claim`).
            guard (try? calls.tryLock(file)) == true else { continue }
            try? calls.unlink(path)  // a failure leaves it for the next sweep
        }
    }

    /// Locks a just-created temp file and checks it still has its name; `false` (the file
    /// closed) when a sweep got there between the create and the lock.
    private func claim(_ file: OpenFile) throws(StorageError) -> Bool {
        do throws(StorageError) {
            // The lock marks the temp as a live writer's: a sweep never removes a locked temp.
            // A sweep holding it right now means the name is being taken from us.
            guard try calls.tryLock(file) else {
                try? calls.close(file)
                return false
            }
            // Locked, but a sweep may have locked and unlinked it just before: then this file
            // has no name, a rename of it would fail, and it is not ours to fill.
            if try calls.linkCount(file) == 0 {
                try? calls.close(file)
                return false
            }
            return true
        } catch {
            abandon(file, file.path)
            throw error
        }
    }

    /// Gives up a temp file: closes it and removes its name. Clean-up after a failure that is
    /// already being thrown, so its own errors are not reported over that one; a temp left
    /// behind is never listed and is removed by the next sweep.
    private func abandon(_ file: OpenFile, _ temp: String) {
        try? calls.close(file)
        try? calls.unlink(temp)
    }

    /// Creates `directory` and any missing parent, each 0700, flushing each one's parent so
    /// the new entry survives a power cut; a directory someone else made meanwhile is fine.
    func makeDirectory(_ directory: String) throws(StorageError) {
        do throws(StorageError) {
            try calls.makeDirectory(directory, mode: Self.directoryMode)
        } catch let error where error.errno == EEXIST {
            return
        } catch let error where error.errno == ENOENT && Self.parent(of: directory) != directory {
            try makeDirectory(Self.parent(of: directory))
            try makeDirectory(directory)
            return
        }
        // The new directory's name lives in its parent: flush the parent, or a power cut can
        // lose the directory together with the file about to be renamed into it.
        try calls.flushDirectory(Self.parent(of: directory))
    }

    /// `error` naming `target` where it named one of the write's temp files: a temp file is
    /// the writer's own business, and the person reading the error knows only the target.
    static func naming(_ target: String, _ error: StorageError) -> StorageError {
        guard let name = error.path?.split(separator: "/").last, name.hasPrefix(tempPrefix) else { return error }
        return StorageError(
            code: error.code, operation: error.operation, path: target, errno: error.errno, reason: error.reason)
    }

    /// `directory/name`, without doubling a `/` when `directory` is the root.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The directory holding `path`; `/` for `/` itself.
    static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "/" }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    private static func randomSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (word: UInt64) in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
