import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The live ``FileSystemCalls``: each method is one POSIX call (or the few a whole-file read
/// or a directory flush needs), its result checked right after the call.
///
/// A call interrupted by a signal (`EINTR`) is made again; any other `-1` becomes a
/// ``StorageError`` through `StorageError.system`, which maps the errno (a refused disk,
/// a full one) in the one place that mapping lives. Nothing is ever retried after a real
/// failure: an `EIO` from `fsync` is thrown, once. Every descriptor is opened with
/// `O_CLOEXEC` (never inherited by a child process) and, where a path could be a planted
/// symlink, `O_NOFOLLOW`.
package struct POSIXFileSystem: FileSystemCalls {
    package init() {}

    package func create(_ path: String, mode: mode_t) throws(StorageError) -> OpenFile {
        // O_EXCL: a name that exists (even as a dangling symlink) is never reused, so two
        // writers can never share a temp file.
        let descriptor = try retried("open", path) {
            systemOpen(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        }
        return OpenFile(descriptor: descriptor, path: path)
    }

    package func open(_ path: String) throws(StorageError) -> OpenFile {
        // O_NONBLOCK: opening a planted FIFO must not hang; it changes nothing for a file.
        let descriptor = try retried("open", path) {
            systemOpen(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0)
        }
        return OpenFile(descriptor: descriptor, path: path)
    }

    package func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
        while true {
            // LOCK_NB: a lock held elsewhere is an answer (a live writer), not a wait.
            if flock(file.descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            let error = errno
            if error == EINTR { continue }
            if error == EWOULDBLOCK { return false }
            throw .system("flock", path: file.path, errno: error)
        }
    }

    package func linkCount(_ file: OpenFile) throws(StorageError) -> Int {
        var status = stat()
        _ = try retried("fstat", file.path) { fstat(file.descriptor, &status) }
        return Int(status.st_nlink)
    }

    package func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
        // write(2) may take fewer bytes than asked; keep going until every byte is in.
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(file.descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written == 0 {
                    return EIO  // no progress and no errno: never loop on it
                } else if errno != EINTR {
                    return errno
                }
            }
            return nil
        }
        if let failure { throw .system("write", path: file.path, errno: failure) }
    }

    package func flush(_ file: OpenFile) throws(StorageError) {
        try flushDescriptor(file.descriptor, file.path)
    }

    package func close(_ file: OpenFile) throws(StorageError) {
        // Not retried on EINTR: Linux releases the descriptor whatever close(2) returns,
        // and a second close could close a descriptor another thread just opened.
        if systemClose(file.descriptor) == -1, errno != EINTR {
            throw .system("close", path: file.path, errno: errno)
        }
    }

    package func rename(_ from: String, to: String) throws(StorageError) {
        _ = try retried("rename", from) { systemRename(from, to) }
    }

    package func flushDirectory(_ path: String) throws(StorageError) {
        // A directory's entries are flushed through a descriptor of the directory itself.
        let descriptor = try retried("open", path) {
            systemOpen(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
        }
        defer { _ = systemClose(descriptor) }  // read-only: closing cannot lose anything
        try flushDescriptor(descriptor, path)
    }

    package func unlink(_ path: String) throws(StorageError) {
        _ = try retried("unlink", path) { systemUnlink(path) }
    }

    package func makeDirectory(_ path: String, mode: mode_t) throws(StorageError) {
        _ = try retried("mkdir", path) { mkdir(path, mode) }
    }

    package func listDirectory(_ path: String) throws(StorageError) -> [String] {
        // open + fdopendir rather than opendir: only the open can refuse a symlink.
        let descriptor = try retried("open", path) {
            systemOpen(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
        }
        guard let directory = fdopendir(descriptor) else {
            let error = errno
            _ = systemClose(descriptor)  // fdopendir failed, so the descriptor is still ours
            throw .system("fdopendir", path: path, errno: error)
        }
        defer { closedir(directory) }  // closes the descriptor too
        var names: [String] = []
        while true {
            // readdir returns nil both at the end and on failure; only errno tells them apart.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .system("readdir", path: path, errno: errno) }
                return names
            }
            // The name read where it lies, up to its NUL: no copy of it but the String's own.
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw -> String? in
                let bytes = raw.assumingMemoryBound(to: UInt8.self)
                let name = UnsafeBufferPointer(rebasing: bytes[..<(bytes.firstIndex(of: 0) ?? bytes.count)])
                if name.count <= 2 && name.allSatisfy({ $0 == 0x2e }) { return nil }  // `.` and `..`
                return String(checkedUTF8: name)
            }
            if let name { names.append(name) }
        }
    }

    package func readFile(_ path: String) throws(StorageError) -> [UInt8] {
        let (file, size) = try openValue(path)
        defer { _ = systemClose(file.descriptor) }  // read-only: closing cannot lose anything
        var failure: StorageError?
        var next: UInt8?
        // Read straight into the array, sized to the file: one buffer, no copy.
        let content = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            do throws(StorageError) {
                (initialized, next) = try Self.fill(buffer, from: file, size: size, path: path)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        guard let next else { return content }
        return try Self.readToEnd(file, after: content + [next], path: path)
    }

    package func readText(
        _ path: String, _ text: (UnsafeBufferPointer<UInt8>) -> Int?
    ) throws(StorageError) -> String? {
        let (file, size) = try openValue(path)
        defer { _ = systemClose(file.descriptor) }  // read-only: closing cannot lose anything
        var failure: StorageError?
        var grown = false
        var accepted = true
        // The file's bytes read straight into the string's storage, sized to the file: the
        // value is held once. The stdlib checks them again as it makes the string, which
        // costs a pass, never a copy, since `text` has refused what is not UTF-8.
        let string = String(unsafeUninitializedCapacity: size) { buffer -> Int in
            let filled: Int
            do throws(StorageError) {
                let read = try Self.fill(buffer, from: file, size: size, path: path)
                filled = read.filled
                grown = read.next != nil
            } catch {
                failure = error
                return 0
            }
            guard !grown else { return 0 }
            guard let kept = text(UnsafeBufferPointer(start: buffer.baseAddress, count: filled)), kept >= 0,
                kept <= filled
            else {
                accepted = false
                return 0
            }
            return kept
        }
        if let failure { throw failure }
        // A file that grew while it was read (another process appending) is read on to its
        // end, as `readFile` reads it: rare, and worth a copy for the whole value.
        if grown { return Self.text(of: try readFile(path), text) }
        return accepted ? string : nil
    }

    /// Reads `file` into `buffer` (room for `size` bytes, the file's size when opened): how
    /// many bytes it holds (fewer for a file cut since), and, when the file grew past `size`
    /// meanwhile, the byte after them (`buffer` is full, and the rest is still to read).
    private static func fill(
        _ buffer: UnsafeMutableBufferPointer<UInt8>, from file: OpenFile, size: Int, path: String
    ) throws(StorageError) -> (filled: Int, next: UInt8?) {
        var filled = 0
        while filled < size, let base = buffer.baseAddress {
            let count = systemRead(file.descriptor, base + filled, size - filled)
            if count > 0 {
                filled += count
            } else if count == 0 {
                return (filled, nil)  // the end of a file cut since its size was taken
            } else if errno != EINTR {
                throw .system("read", path: path, errno: errno)
            }
        }
        // One byte more tells a file that grew since its size was taken.
        var extra: UInt8 = 0
        var count = -1
        repeat { count = systemRead(file.descriptor, &extra, 1) } while count < 0 && errno == EINTR
        if count < 0 { throw .system("read", path: path, errno: errno) }
        return (filled, count > 0 ? extra : nil)
    }

    /// `content`, the first bytes of `file`, and the rest of it read on to its end: a file
    /// that grew while it was read (another process appending).
    private static func readToEnd(
        _ file: OpenFile, after content: [UInt8], path: String
    ) throws(StorageError) -> [UInt8] {
        var content = content
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(file.descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                content.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                return content  // end of file
            } else if errno != EINTR {
                throw .system("read", path: path, errno: errno)
            }
        }
    }

    /// The file at `path` opened to read a value, and its size: never through a symlink,
    /// only a regular file, and only one keep may read (``Ownership``).
    private func openValue(_ path: String) throws(StorageError) -> (file: OpenFile, size: Int) {
        let file = try open(path)
        var status = stat()
        do throws(StorageError) {
            _ = try retried("fstat", path) { fstat(file.descriptor, &status) }
            // Only a regular file holds a value; a directory or a device at a key's name does not.
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw StorageError(code: .corrupt, operation: "read", path: path, reason: "not a regular file")
            }
            // Checked on the descriptor it is read through: see `Ownership`.
            if let refusal = Ownership.refusal(path, Self.status(status)) { throw refusal }
        } catch {
            _ = systemClose(file.descriptor)  // read-only: closing cannot lose anything
            throw error
        }
        return (file, Int(status.st_size))
    }

    package func openForAppending(_ path: String) throws(StorageError) -> OpenFile {
        // O_APPEND: every write lands at the end, wherever another writer left it.
        // O_NOFOLLOW: a planted symlink is refused, never followed. O_NONBLOCK: opening a
        // planted FIFO must not hang (the caller refuses it by its status).
        let descriptor = try retried("open", path) {
            systemOpen(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0)
        }
        return OpenFile(descriptor: descriptor, path: path)
    }

    package func status(_ file: OpenFile) throws(StorageError) -> FileStatus {
        var info = stat()
        _ = try retried("fstat", file.path) { fstat(file.descriptor, &info) }
        return Self.status(info)
    }

    package func read(_ file: OpenFile, count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        // pread(2) may return fewer bytes than asked before the end; read on until it says 0.
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(file.descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if got > 0 {
                filled += got
            } else if got == 0 {
                break  // the end of the file
            } else if errno != EINTR {
                throw .system("pread", path: file.path, errno: errno)
            }
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    package func truncate(_ file: OpenFile, to size: Int) throws(StorageError) {
        _ = try retried("ftruncate", file.path) { ftruncate(file.descriptor, off_t(size)) }
    }

    package func lock(_ file: OpenFile) throws(StorageError) {
        // Without LOCK_NB: waits for the holder (another appender, a writer about to
        // replace the file) to close its descriptor.
        _ = try retried("flock", file.path) { flock(file.descriptor, LOCK_EX) }
    }

    package func openDirectory(_ path: String) throws(StorageError) -> OpenFile {
        let descriptor = try retried("open", path) {
            systemOpen(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
        }
        return OpenFile(descriptor: descriptor, path: path)
    }

    package func status(of name: String, in directory: OpenFile) throws(StorageError) -> FileStatus {
        var info = stat()
        // Relative to the open directory: no walk of the directory's path for each name, and
        // the name's path made only for an error.
        while fstatat(directory.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) != 0 {
            let error = errno
            if error != EINTR { throw .system("lstat", path: AtomicWriter.join(directory.path, name), errno: error) }
        }
        return Self.status(info)
    }

    /// The parts of `info` the adapters use. The modification time is `st_mtim` on Linux and
    /// `st_mtimespec` on Darwin: the one place that difference is spelled.
    package static func status(_ info: stat) -> FileStatus {
        let kind: FileStatus.Kind =
            switch info.st_mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .directory
            case S_IFLNK: .symbolicLink
            case S_IFIFO: .fifo
            default: .other
            }
        #if canImport(Darwin)
            let time = info.st_mtimespec
        #else
            let time = info.st_mtim
        #endif
        return FileStatus(
            kind: kind, size: Int64(info.st_size),
            modified: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec), inode: UInt64(info.st_ino),
            linkCount: Int(info.st_nlink), owner: UInt32(info.st_uid), permissions: UInt32(info.st_mode) & 0o7777)
    }

    /// Flushes one descriptor's data to stable storage. On Darwin plain `fsync` stops at the
    /// drive's cache, so `F_FULLFSYNC` asks the drive to write it through; a file system
    /// that does not support it (some network volumes) falls back to `fsync`.
    private func flushDescriptor(_ descriptor: Int32, _ path: String) throws(StorageError) {
        #if canImport(Darwin)
            while fcntl(descriptor, F_FULLFSYNC) == -1 {
                let error = errno
                if error == EINTR { continue }
                if error != ENOTSUP && error != EINVAL {
                    throw .system("fcntl(F_FULLFSYNC)", path: path, errno: error)
                }
                _ = try retried("fsync", path) { fsync(descriptor) }
                return
            }
        #else
            _ = try retried("fsync", path) { fsync(descriptor) }
        #endif
    }

    /// Runs `call` until it returns something other than `-1`-with-`EINTR`; throws the
    /// typed error for any other `-1`.
    private func retried<Result: BinaryInteger>(
        _ operation: String, _ path: String, _ call: () -> Result
    ) throws(StorageError) -> Result {
        while true {
            let result = call()
            if result != -1 { return result }
            let error = errno
            if error != EINTR { throw .system(operation, path: path, errno: error) }
        }
    }
}

// MARK: - The C calls whose names the methods above shadow

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}
