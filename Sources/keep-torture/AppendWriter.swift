import KeepConformance
import KeepFileStore
import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends lines of 16 bytes to 64 KiB to keys `a0`…`a3` of `chats`, and now and then
/// replaces a key's value whole with a one-line value, forever.
///
/// Prints `begin append|write KEY SEQUENCE SIZE TIME` before each operation and
/// `ack KEY SEQUENCE TIME` when it returned. Every line is a `MarkedValue` of (writer,
/// sequence), so a line read back is whole only when every byte is that writer's. An append
/// to a key with no value yet answers false and writes nothing; the next operation on it is
/// a write.
///
/// Naively (`naive`), it appends the way a first attempt would: the file opened `O_APPEND`,
/// the line written in pieces of 16 bytes and then its newline; no lock, no cut of an
/// unfinished last line (and no flush, which a kill does not need). The broken appender a torture must catch: a kill between two
/// pieces leaves part of a line, which the next append makes part of a finished one.
enum AppendWriter {
    static let keys = (0..<4).map { StorageKey(.chats, "a\($0)") }

    static func run(_ run: TortureRun, naive: Bool) async -> Never {
        let store: FileStore
        do { store = try FileStore(root: run.path) } catch { TortureRun.fail(error) }
        var generator = run.generator()
        var sequence = run.firstSequence
        // Not yet known to hold no value: an append finds out, and the next operation on a
        // key without one is a write. Another run's unfinished line is so appended after.
        var absent = Set<StorageKey>()
        TortureRun.emit("ready")
        while true {
            sequence += 1
            let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
            let size = TortureRun.randomSize(upTo: 16, &generator)
            let line = MarkedValue.make(writer: run.writer, round: sequence, size: size)
            let whole = absent.contains(key) || Int.random(in: 0..<8, using: &generator) == 0
            TortureRun.emit("begin \(whole ? "write" : "append") \(key.id) \(sequence) \(size) \(TortureRun.now())")
            do {
                if whole {
                    try await store.write(key, line + "\n")
                    absent.remove(key)
                } else if naive {
                    if try !appendNaively(line, at: run.path + "/store/chats/" + key.id) { absent.insert(key) }
                } else if try await !store.append(key, { _ in line }) {
                    absent.insert(key)  // another writer's value is not there yet, or any more
                }
            } catch {
                TortureRun.fail(error)
            }
            TortureRun.emit("ack \(key.id) \(sequence) \(TortureRun.now())")
        }
    }
}

extension AppendWriter {
    /// Appends `line` and a newline to the file at `path` in pieces of 16 bytes; `false`
    /// when there is no file.
    fileprivate static func appendNaively(_ line: String, at path: String) throws(StorageError) -> Bool {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT { return false }
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        defer { close(descriptor) }
        let bytes = Array(line.utf8)
        for start in stride(from: 0, to: bytes.count, by: 16) {
            try writeAll(bytes[start..<min(bytes.count, start + 16)], descriptor, path)
        }
        try writeAll([ValueLines.newline][...], descriptor, path)
        return true
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, _ descriptor: Int32, _ path: String) throws(StorageError) {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + (offset - bytes.startIndex), bytes.endIndex - offset)
            }
            guard written > 0 else { throw .system("write", path: path, errno: errno) }
            offset += written
        }
    }
}
