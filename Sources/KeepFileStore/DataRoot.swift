import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where Keep's data lives: the app's directory under the user's data home, never a cache
/// or temp directory, which the system may empty.
///
/// `$XDG_DATA_HOME/keep` when `XDG_DATA_HOME` is an absolute path, else
/// `$HOME/.local/share/keep` when `HOME` is. A relative or empty value is ignored, as the
/// XDG base directory specification says. With neither usable the resolver throws rather
/// than guess: it never falls back to `XDG_CACHE_HOME`, `~/.cache`, `TMPDIR` or `/tmp`.
public enum DataRoot {
    /// The directory Keep uses inside the data home.
    public static let appDirectory = "keep"

    /// The data root for `environment` (pass `ProcessInfo.processInfo.environment`), or a
    /// ``/KeepPorts/StorageError/Code/unavailable`` error saying which variables to set.
    public static func resolve(environment: [String: String]) throws(StorageError) -> String {
        if let dataHome = absolute(environment["XDG_DATA_HOME"]) {
            return AtomicWriter.join(dataHome, appDirectory)
        }
        if let home = absolute(environment["HOME"]) {
            return AtomicWriter.join(home, ".local/share/" + appDirectory)
        }
        throw StorageError(
            code: .unavailable, operation: "resolve the data directory",
            reason:
                "neither XDG_DATA_HOME nor HOME is set to an absolute path; set one of them (Keep never keeps data in a cache or temp directory)"
        )
    }

    /// `path` without trailing slashes when it is absolute and usable, else `nil`.
    private static func absolute(_ path: String?) -> String? {
        guard let path, path.hasPrefix("/"), !path.utf8.contains(0) else { return nil }
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// Creates `directory` and each missing parent, 0700, durably: the one way keep makes a
    /// directory (the data root, the store's namespaces, the lock's and kept data's
    /// directory), through the file store's system-call seam.
    ///
    /// Each new directory's parent is flushed, so a power cut cannot lose the directory
    /// with what is put in it next. One that exists already is fine, unless it is not a
    /// directory or is a symbolic link (`ENOTDIR` or `ELOOP`): keep never follows one for a
    /// directory it keeps data in. `directory` must be absolute.
    public static func makeDirectory(_ directory: String) throws(StorageError) {
        try makeDirectory(directory, calls: POSIXFileSystem())
    }

    /// ``makeDirectory(_:)`` reaching the disk only through `calls`.
    package static func makeDirectory(_ directory: String, calls: any FileSystemCalls) throws(StorageError) {
        let directory = try checked(directory)
        try AtomicWriter(calls: calls).makeDirectory(directory)
        do throws(StorageError) {
            // Opened without following a symlink (O_NOFOLLOW | O_DIRECTORY) and flushed: it
            // is a real directory, and its entries, however they were made, are durable.
            try calls.flushDirectory(directory)
        } catch let error where error.errno == ELOOP || error.errno == ENOTDIR {
            // Linux answers a symlink opened O_NOFOLLOW | O_DIRECTORY with either.
            throw StorageError(
                code: .unavailable, operation: "open", path: directory, errno: error.errno,
                reason: "it is not a directory, or is a symbolic link, which keep never follows to a directory it "
                    + "keeps data in")
        }
    }

    /// `root` checked for use as a store's root: an absolute path with no NUL, without
    /// trailing slashes. A relative root would move with the working directory.
    static func checked(_ root: String) throws(StorageError) -> String {
        guard let checked = absolute(root) else {
            throw StorageError(
                code: .unavailable, operation: "open store", path: StorageError.quoted(root),
                reason: "a store's root must be an absolute path")
        }
        return checked
    }
}
