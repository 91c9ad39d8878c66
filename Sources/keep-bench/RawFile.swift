import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The baselines' own file system calls, made straight on POSIX with nothing in between:
/// the floor a durable store can approach, and the quick way a scenario fills a directory.
///
/// Every call's result is checked right after it; a failure is a ``KeepPorts/StorageError``
/// from `StorageError.system`, which names the call, the path and the errno (and maps a
/// full or refused disk to its own code). `EINTR` is retried.
enum RawFile {
    /// Writes `bytes` over the start of the open file `descriptor` and flushes it: one
    /// `pwrite` and one `fsync`, the cheapest durable write there is (and not atomic).
    static func overwriteInPlace(_ descriptor: Int32, path: String, _ bytes: [UInt8]) throws(StorageError) {
        try writeAll(descriptor, path: path, bytes, atOffset: 0)
        try retried("fsync", path) { fsync(descriptor) }
    }

    /// Replaces `directory/name` with `bytes` by the two flushes an atomic durable replace
    /// needs, and nothing more: create a temp (`tempName`: one per concurrent writer),
    /// write, fsync, close, rename over the target, then open, fsync and close the directory.
    static func replaceWithTwoFlushes(
        in directory: String, name: String, _ bytes: [UInt8], tempName: String = ".raw-tmp"
    ) throws(StorageError) {
        let temp = directory + "/" + tempName
        let target = directory + "/" + name
        let file = try retried("open", temp) { open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        do throws(StorageError) {
            try writeAll(file, path: temp, bytes, atOffset: nil)
            // Flush one: the data, before any name points at it.
            try retried("fsync", temp) { fsync(file) }
        } catch {
            _ = close(file)
            throw error
        }
        try retried("close", temp) { close(file) }
        try retried("rename", temp) { rename(temp, target) }
        // Flush two: the directory, so the new name survives a power cut.
        try flushDirectory(directory)
    }

    /// Opens, fsyncs and closes the directory `path`.
    static func flushDirectory(_ path: String) throws(StorageError) {
        let directory = try retried("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = close(directory) }  // read-only: closing cannot lose anything
        try retried("fsync", path) { fsync(directory) }
    }

    /// The whole file at `path`: open, fstat, read to the end, close.
    static func read(_ path: String) throws(StorageError) -> [UInt8] {
        let file = try retried("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { _ = close(file) }  // read-only: closing cannot lose anything
        var status = stat()
        try retried("fstat", path) { fstat(file, &status) }
        var content = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var filled = 0
        while true {
            if filled == content.count { content.append(contentsOf: repeatElement(0, count: 4096)) }
            let count = content.withUnsafeMutableBytes { buffer in
                systemRead(file, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count > 0 {
                filled += count
            } else if count == 0 {
                return Array(content[..<filled])
            } else if errno != EINTR {
                throw .system("read", path: path, errno: errno)
            }
        }
    }

    /// The names in the directory `path`, without `.` and `..`.
    static func names(in path: String) throws(StorageError) -> [String] {
        guard let directory = opendir(path) else { throw .system("opendir", path: path, errno: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            // readdir answers nil both at the end and on failure; only errno tells them apart.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .system("readdir", path: path, errno: errno) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// How many names the directory `path` holds, each `lstat`ed (`fstatat` beside the
    /// directory, never followed): what any cache must do to know which files changed.
    static func statEvery(in path: String) throws(StorageError) -> Int {
        guard let directory = opendir(path) else { throw .system("opendir", path: path, errno: errno) }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        var count = 0
        var status = stat()
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .system("readdir", path: path, errno: errno) }
                return count
            }
            let stated = withUnsafeBytes(of: entry.pointee.d_name) { raw -> Int32 in
                guard let name = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else { return 1 }
                if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { return 1 }
                return fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW)
            }
            if stated == 0 { count += 1 } else if stated < 0 { throw .system("fstatat", path: path, errno: errno) }
        }
    }

    /// Creates `path` and its missing parents, mode 0700.
    static func makeDirectories(_ path: String) throws(StorageError) {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) == -1, errno != EEXIST {
                throw .system("mkdir", path: current, errno: errno)
            }
        }
    }

    /// Writes `bytes` as the new file `path` (mode 0600) and closes it, with no flush: for
    /// filling a scenario's directories fast. ``flushEverything()`` makes them durable.
    static func create(_ path: String, _ bytes: [UInt8]) throws(StorageError) {
        let file = try retried("open", path) { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        do throws(StorageError) {
            try writeAll(file, path: path, bytes, atOffset: nil)
        } catch {
            _ = close(file)
            throw error
        }
        try retried("close", path) { close(file) }
    }

    /// Appends `bytes` to the file `path` and flushes it: open with `O_APPEND`, one write,
    /// one `fsync`, close. What a turn that is one append costs at the least.
    static func appendAndFlush(_ path: String, _ bytes: [UInt8]) throws(StorageError) {
        let file = try retried("open", path) { open(path, O_WRONLY | O_APPEND | O_CLOEXEC) }
        do throws(StorageError) {
            try writeAll(file, path: path, bytes, atOffset: nil)
            try retried("fsync", path) { fsync(file) }
        } catch {
            _ = close(file)
            throw error
        }
        try retried("close", path) { close(file) }
    }

    /// Opens `path` for writing in place (creating it, 0600); the caller closes it.
    static func openForWriting(_ path: String) throws(StorageError) -> Int32 {
        try retried("open", path) { open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600) }
    }

    /// Everything written so far on its way to the disk (`sync`), so a scenario's set-up
    /// is not still being written back while it is measured.
    static func flushEverything() {
        sync()
    }

    private static func writeAll(
        _ descriptor: Int32, path: String, _ bytes: [UInt8], atOffset offset: off_t?
    ) throws(StorageError) {
        // write(2) may take fewer bytes than asked; keep going until every byte is in.
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var done = 0
            while done < buffer.count {
                let written =
                    offset.map { pwrite(descriptor, base + done, buffer.count - done, $0 + off_t(done)) }
                    ?? write(descriptor, base + done, buffer.count - done)
                if written > 0 {
                    done += written
                } else if written == 0 {
                    return EIO  // no progress and no errno: never loop on it
                } else if errno != EINTR {
                    return errno
                }
            }
            return nil
        }
        if let failure { throw .system("write", path: path, errno: failure) }
    }

    /// Runs `call` until it answers something other than `-1` with `EINTR`; any other
    /// `-1` is the typed error.
    @discardableResult
    private static func retried<Result: BinaryInteger>(
        _ operation: String, _ path: String, _ call: () -> Result
    ) throws(StorageError) -> Result {
        while true {
            let result = call()
            if result != -1 { return result }
            if errno != EINTR { throw .system(operation, path: path, errno: errno) }
        }
    }
}

/// A descriptor held open for the life of a contender, closed when it goes.
final class OpenDescriptor: Sendable {
    let descriptor: Int32
    let path: String

    init(writing path: String) throws(StorageError) {
        descriptor = try RawFile.openForWriting(path)
        self.path = path
    }

    deinit {
        // Every write through it was flushed already; a close error loses nothing.
        _ = close(descriptor)
    }
}

/// `read(2)`, under a name the static `RawFile.read` does not shadow.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
