import Foundation
import KeepFileStore
import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lines typed at the interactive chat's prompt, kept across launches so Up and Ctrl-R
/// find them: the file `history` in the data root.
///
/// The file is a JSON array of strings, oldest first, at most ``capacity`` of them (the
/// oldest go first). It is written whole to a temp file created `0600` (`O_EXCL`, never
/// following a link) and renamed over the old one, so it is never readable by anyone else
/// and never half-written; it is merged with what another chat wrote since, never replaced
/// by a stale copy. Only lines typed at the chat's prompt are added: a key is typed at a
/// different, hidden prompt and never reaches it. A file that cannot be read or is not
/// such an array is an error, and is left as it is: nothing is written over it.
package struct QuestionHistory: Sendable {
    /// The most entries kept.
    package static let capacity = 1000
    /// The file's name in the data root.
    package static let fileName = "history"

    /// A history file that could not be read or written.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// What was being done: `read`, `write`, `remove`.
        package let operation: String
        /// The history file.
        package let path: String
        /// What went wrong, in words; never a line of the history.
        package let reason: String
        package var description: String { "cannot \(operation) the question history \(path): \(reason)" }
    }

    /// The history file: `<root>/history`.
    package let path: String
    let capacity: Int

    /// The history in the data root `root`.
    package init(root: String, capacity: Int = QuestionHistory.capacity) {
        path = (root as NSString).appendingPathComponent(Self.fileName)
        self.capacity = capacity
    }

    /// The entries, oldest first; none when there is no file yet.
    package func load() throws(Failure) -> [String] {
        let data: Data
        do {
            // A FIFO or device at the history's name is refused before it is opened.
            try FileKind.refuseUnsafe(path)
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as StorageError {
            throw Failure(operation: "read", path: path, reason: error.reason ?? error.description)
        } catch CocoaError.fileReadNoSuchFile {
            return []
        } catch {
            throw Failure(operation: "read", path: path, reason: "\(error.localizedDescription)")
        }
        guard let entries = try? JSONDecoder().decode([String].self, from: data) else {
            throw Failure(operation: "read", path: path, reason: "it is not a list of lines; it was left as it is")
        }
        return entries
    }

    /// Adds `line` as the newest entry (unless it is the newest already) and answers the
    /// entries as they now are.
    @discardableResult
    package func append(_ line: String) throws(Failure) -> [String] {
        var entries = try load()
        if entries.last != line { entries.append(line) }
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        try write(entries)
        return entries
    }

    /// Removes the file (when history is turned off); no file is not an error.
    package func remove() throws(Failure) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw Failure(operation: "remove", path: path, reason: String(cString: strerror(errno)))
        }
    }

    private func write(_ entries: [String]) throws(Failure) {
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(entries)
        } catch {
            throw Failure(operation: "encode", path: path, reason: "\(error)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let temp = (directory as NSString).appendingPathComponent(".keep-tmp-history-\(UUID().uuidString)")
        let file = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else {
            throw Failure(operation: "write", path: temp, reason: String(cString: strerror(errno)))
        }
        var failure: Failure?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(file, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    failure = Failure(operation: "write", path: temp, reason: String(cString: strerror(errno)))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(file) != 0 {
            failure = Failure(operation: "flush", path: temp, reason: String(cString: strerror(errno)))
        }
        close(file)
        if failure == nil, rename(temp, path) != 0 {
            failure = Failure(operation: "replace", path: path, reason: String(cString: strerror(errno)))
        }
        if let failure {
            unlink(temp)
            throw failure
        }
    }
}

/// `write(2)`, named apart from ``QuestionHistory``'s own `write`.
private func systemWrite(_ file: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(file, bytes, count)
}
