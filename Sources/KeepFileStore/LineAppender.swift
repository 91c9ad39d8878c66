import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file store's append: one line added at the end of a value's file, durably, in place.
///
/// The steps, each with the failure it closes:
/// 1. Open the file with the key's name for appending, never through a symlink: no file is
///    no value (`false`, nothing created), so a removed value is never re-created.
/// 2. Lock it and check it still has its name (``NameLock``): a line never goes into a
///    file a concurrent write has just replaced, and appends to one file take turns.
/// 3. Refuse anything but a regular file, as `read` does.
/// 4. Cut an unfinished last line (``ValueLines``), left by an append a crash interrupted,
///    and flush the cut: the line is never added after garbage, and bytes of the cut tail
///    cannot come back under the new line after a power cut.
/// 5. Write the line and its newline at the end, and flush the file. No directory flush:
///    no name changed. A failed write or flush (`EIO` is never retried into success) cuts
///    the file back to where it was and throws: the line was not acknowledged.
/// 6. Close, releasing the lock.
///
/// A crash or a power cut anywhere in it leaves the old value, with at most an unfinished
/// last line: a reader ignores it, and the next append cuts it. The line itself is made
/// between steps 4 and 5, by the caller, once it knows the offset (``Opened/finished``), and
/// the lock is held meanwhile.
struct LineAppender: Sendable {
    let calls: any FileSystemCalls

    /// How many bytes of the end of a file are read at a time to find its last lines.
    private static let chunk = 16 << 10

    /// A value's file opened, locked and cut: ready for its line, which starts at `finished`.
    struct Opened: Sendable {
        let file: OpenFile
        let finished: Int
    }

    /// Steps 1 to 4: the file at `path` (the value of `key`) opened, locked, checked and cut
    /// to its finished lines; `nil` when there is no file. Blocks in system calls. The
    /// caller hands the result to ``add(_:to:)`` or ``abandon(_:)``, which close it.
    func open(_ path: String) throws(StorageError) -> Opened? {
        let opened: (file: OpenFile, status: FileStatus)?
        do throws(StorageError) {
            opened = try NameLock.hold(path, calls: calls) { (path) throws(StorageError) in
                try calls.openForAppending(path)
            }
        } catch let error where error.errno == ELOOP || error.errno == EISDIR {
            throw StorageError(
                code: .corrupt, operation: "append", path: path, errno: error.errno,
                reason: error.errno == ELOOP
                    ? "it is a symbolic link, which keep never follows" : "it is a directory, not a file")
        }
        guard let (file, status) = opened else { return nil }
        do throws(StorageError) {
            guard status.kind == .regular else {
                throw StorageError(
                    code: .corrupt, operation: "append", path: path,
                    reason: status.irregularity ?? "it is not a regular file")
            }
            let size = Int(status.size)
            let finished = try finishedCount(of: file, size: size)
            if finished < size {
                // 4. The torn tail cut, and the cut made durable before anything lands after it.
                try calls.truncate(file, to: finished)
                try calls.flush(file)
            }
            return Opened(file: file, finished: finished)
        } catch {
            abandon(Opened(file: file, finished: 0))
            throw error
        }
    }

    /// Step 5 and 6: `bytes` (a line and its newline) written at the end of the opened file
    /// and flushed, the file closed. When it throws, the line is cut back and was not
    /// acknowledged. Blocks in system calls.
    func add(_ bytes: [UInt8], to opened: Opened) throws(StorageError) {
        // 6. Closed last: its data is flushed (or cut back) by then, so a close error says
        //    nothing about the value.
        defer { abandon(opened) }
        do throws(StorageError) {
            // 5. The line at the end, then durable: only now is it acknowledged.
            try calls.write(opened.file, bytes)
            try calls.flush(opened.file)
        } catch {
            // Not acknowledged: what reached the file (all of it, after a failed flush, still
            // reads back) is cut, so no reader takes it for a line.
            try? calls.truncate(opened.file, to: opened.finished)
            throw error
        }
    }

    /// Closes the opened file without adding anything, releasing its lock.
    func abandon(_ opened: Opened) {
        try? calls.close(opened.file)
    }

    /// How many of the file's `size` bytes are finished lines (see ``ValueLines``), read
    /// from the end back to the start of its last line, no further.
    private func finishedCount(of file: OpenFile, size: Int) throws(StorageError) -> Int {
        var lastNewline: Int?
        var sawNul = false
        var end = size
        while end > 0 {
            let start = max(0, end - Self.chunk)
            let bytes = try calls.read(file, count: end - start, at: start)
            guard bytes.count == end - start else {
                throw StorageError(
                    code: .io, operation: "pread", path: file.path, reason: "the file shrank while it was locked")
            }
            for index in bytes.indices.reversed() {
                let byte = bytes[index]
                guard let found = lastNewline else {
                    if byte == ValueLines.newline { lastNewline = start + index }
                    continue
                }
                // The line before the last one ends here: the last line is known whole.
                if byte == ValueLines.newline { return sawNul ? start + index + 1 : found + 1 }
                if byte == 0 { sawNul = true }
            }
            end = start
        }
        // No newline before the last line: it starts the file.
        guard let lastNewline else { return 0 }
        return sawNul ? 0 : lastNewline + 1
    }
}
