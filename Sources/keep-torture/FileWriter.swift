import KeepConformance
import KeepFileStore
import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Overwrites keys `k0`…`k7` of `chats` with values of 16 bytes to 1 MiB, forever.
///
/// Prints `begin KEY SEQUENCE SIZE TIME` before each write and `ack KEY SEQUENCE TIME` when
/// it returned. In place, it writes each value over its file (`O_TRUNC`, write, `fsync`)
/// where the store would go through a temp file: the broken writer a torture must catch.
enum FileWriter {
    static func run(_ run: TortureRun, inPlace: Bool) async -> Never {
        let keys = (0..<8).map { StorageKey(.chats, "k\($0)") }
        let store: FileStore
        do { store = try FileStore(root: run.path) } catch { TortureRun.fail(error) }
        var generator = run.generator()
        var sequence = run.firstSequence
        TortureRun.emit("ready")
        while true {
            sequence += 1
            let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
            let size = TortureRun.randomSize(upTo: 20, &generator)
            let value = MarkedValue.make(writer: run.writer, round: sequence, size: size)
            TortureRun.emit("begin \(key.id) \(sequence) \(size) \(TortureRun.now())")
            do {
                if inPlace {
                    try writeInPlace(Array(value.utf8), at: run.path + "/store/chats/" + key.id)
                } else {
                    try await store.write(key, value)
                }
            } catch {
                TortureRun.fail(error)
            }
            TortureRun.emit("ack \(key.id) \(sequence) \(TortureRun.now())")
        }
    }

    /// Truncates the file at `path` (making its directories) and writes `bytes` into it.
    private static func writeInPlace(_ bytes: [UInt8], at path: String) throws(StorageError) {
        var directory = ""
        for component in path.split(separator: "/").dropLast() {
            directory += "/" + component
            if mkdir(directory, 0o700) == -1, errno != EEXIST { throw .system("mkdir", path: directory, errno: errno) }
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else { throw .system("write", path: path, errno: errno) }
            offset += written
        }
        guard fsync(descriptor) == 0 else { throw .system("fsync", path: path, errno: errno) }
    }
}
