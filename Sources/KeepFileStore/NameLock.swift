import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lock an appender and a writer of one value's file share: an exclusive `flock` on the
/// file that has the value's name, so a line is never appended to a file a rename has just
/// replaced.
///
/// The lock is on a file, the rename moves a name: a file locked after a writer renamed a new
/// one over it has no name any more (its link count is 0). So ``hold(_:calls:open:)`` opens
/// the name, waits for the lock, and checks the locked file still has a name, opening the
/// name afresh until it holds the file the name is on. An appender holding it finishes its
/// line before a writer holding it can rename; a writer holding it renames before an
/// appender can begin. The lock lasts until the file is closed.
enum NameLock {
    /// How often a file is opened afresh because a rename replaced it while the lock was
    /// awaited: each time means another write finished meanwhile, so a few are plenty.
    static let attempts = 16

    /// The file at `path`, opened with `open`, locked, and still named `path`, with its
    /// status as of the lock; `nil` when there is no file at `path` (`ENOENT`).
    static func hold(
        _ path: String, calls: any FileSystemCalls,
        open: (String) throws(StorageError) -> OpenFile
    ) throws(StorageError) -> (file: OpenFile, status: FileStatus)? {
        for _ in 0..<attempts {
            let file: OpenFile
            do throws(StorageError) {
                file = try open(path)
            } catch let error where error.errno == ENOENT {
                return nil
            }
            do throws(StorageError) {
                try calls.lock(file)
                let status = try calls.status(file)
                if status.linkCount > 0 { return (file, status) }
            } catch {
                try? calls.close(file)  // read or not yet written: closing loses nothing
                throw error
            }
            // Replaced (or removed) while the lock was awaited: the name is on another file.
            try? calls.close(file)
        }
        throw StorageError(
            code: .io, operation: "flock", path: path,
            reason: "the file was replaced \(attempts) times while its lock was awaited")
    }
}
