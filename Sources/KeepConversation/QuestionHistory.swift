import Foundation
import KeepFileStore
import KeepPorts

/// The lines typed at the interactive chat's prompt, kept across launches so Up and Ctrl-R
/// find them: one value in the store (``key``, in the `history` namespace), sealed with the
/// chats when they are sealed.
///
/// The value is one line per question typed, each a JSON string (so a question of many
/// lines is one line of the value), appended with the store's `append`: a question costs the
/// question, whatever the history holds, and the lines of chats running side by side merge
/// in the order they were typed. ``load()`` answers the newest ``capacity`` entries, a line
/// repeated back to back once, and rewrites the value to those when it has grown past twice
/// the capacity. Appends and rewrites hold the store's lock. Only lines typed at the chat's
/// prompt are added: a key is typed at a different, hidden prompt and never reaches it.
///
/// Older builds kept the history in the file `<root>/history` (a JSON array): the first
/// ``load()`` moves it into the store, the store's lines after its own, and removes it. A
/// value (or an old file) that is not such lines is an error, and is left as it is: nothing
/// is written over it.
package struct QuestionHistory: Sendable {
    /// The most entries kept.
    package static let capacity = 1000
    /// The old history file's name in the data root.
    package static let fileName = "history"
    /// Where the history is kept in the store.
    package static let key = StorageKey(.history, "questions")

    /// A history that could not be read or written.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        /// What was being done: `read`, `write`, `remove`.
        package let operation: String
        /// The old history file, when the failure is its own.
        package var path: String?
        /// What went wrong, in words; never a line of the history.
        package let reason: String

        init(operation: String, path: String? = nil, reason: String) {
            self.operation = operation
            self.path = path
            self.reason = reason
        }

        package var description: String {
            "cannot \(operation) the question history\(path.map { " \($0)" } ?? ""): \(reason)"
        }
    }

    /// The old history file, `<root>/history`, moved into the store when found.
    package let legacyPath: String
    private let storage: any StoragePort
    private let lock: StoreLock
    let capacity: Int

    /// The history in `storage`, under the data root `root` (whose store lock it takes).
    package init(storage: any StoragePort, root: String, capacity: Int = QuestionHistory.capacity) {
        self.storage = storage
        lock = StoreLock(root: root)
        legacyPath = (root as NSString).appendingPathComponent(Self.fileName)
        self.capacity = capacity
    }

    /// The entries, oldest first; none when nothing was typed yet.
    package func load() async throws(Failure) -> [String] {
        try await locked("read") { () throws(Failure) in
            let legacy = try readLegacy()
            let stored = try await read() ?? []
            let all = legacy + stored
            var entries: [String] = []
            for entry in all where entries.last != entry { entries.append(entry) }
            let kept = Array(entries.suffix(capacity))
            if legacy.isEmpty == false || stored.count > 2 * capacity {
                try await write(kept)
            }
            if legacy.isEmpty == false || FileManager.default.fileExists(atPath: legacyPath) {
                try removeLegacy()
            }
            return kept
        }
    }

    /// Adds `line` as the newest entry: one append of the line.
    package func append(_ line: String) async throws(Failure) {
        let encoded = try Self.encoded(line)
        try await locked("write") { () throws(Failure) in
            do throws(StorageError) {
                if try await storage.append(Self.key, { _ in encoded }) == false {
                    try await storage.write(Self.key, encoded + "\n")
                }
            } catch {
                throw Failure(operation: "write", reason: error.description)
            }
        }
    }

    /// Removes the history (when it is turned off), and any old history file.
    package func remove() async throws(Failure) {
        try await locked("remove") { () throws(Failure) in
            do throws(StorageError) {
                try await storage.remove(Self.key)
            } catch {
                throw Failure(operation: "remove", reason: error.description)
            }
            try removeLegacy()
        }
    }

    // MARK: - Steps

    private func locked<T>(
        _ operation: String, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let held: StoreLock.Held
        do { held = try await lock.acquire() } catch { throw Failure(operation: operation, reason: error.description) }
        defer { held.release() }
        return try await body()
    }

    private func read() async throws(Failure) -> [String]? {
        let text: String?
        do { text = try await storage.read(Self.key) } catch {
            throw Failure(operation: "read", reason: error.description)
        }
        guard let text else { return nil }
        var entries: [String] = []
        for line in text.split(separator: "\n") {
            guard let entry = try? JSONDecoder().decode(String.self, from: Data(line.utf8)) else {
                throw Failure(operation: "read", reason: "\(Self.key) is not lines typed; it was left as it is")
            }
            entries.append(entry)
        }
        return entries
    }

    private func write(_ entries: [String]) async throws(Failure) {
        var text = ""
        for entry in entries { text += try Self.encoded(entry) + "\n" }
        do { try await storage.write(Self.key, text) } catch {
            throw Failure(operation: "write", reason: error.description)
        }
    }

    /// The old file's entries; none when there is no file.
    private func readLegacy() throws(Failure) -> [String] {
        let data: Data
        do {
            // A FIFO or device, or another user's file, at the old history's name is refused
            // before it is opened.
            try FileKind.refuseUnsafe(legacyPath)
            data = try Data(contentsOf: URL(fileURLWithPath: legacyPath))
        } catch let error as StorageError {
            throw Failure(operation: "read", path: legacyPath, reason: error.reason ?? error.description)
        } catch CocoaError.fileReadNoSuchFile {
            return []
        } catch {
            throw Failure(operation: "read", path: legacyPath, reason: error.localizedDescription)
        }
        guard let entries = try? JSONDecoder().decode([String].self, from: data) else {
            throw Failure(
                operation: "read", path: legacyPath, reason: "it is not a list of lines; it was left as it is")
        }
        return entries
    }

    private func removeLegacy() throws(Failure) {
        guard unlink(legacyPath) == 0 || errno == ENOENT else {
            throw Failure(operation: "remove", path: legacyPath, reason: String(cString: strerror(errno)))
        }
    }

    private static func encoded(_ line: String) throws(Failure) -> String {
        do {
            return String(decoding: try JSONEncoder().encode(line), as: UTF8.self)
        } catch {
            throw Failure(operation: "write", reason: "the line could not be encoded")
        }
    }
}
