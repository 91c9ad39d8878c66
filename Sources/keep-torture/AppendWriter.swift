import KeepConformance
import KeepFileStore
import KeepPorts

/// Appends lines of 16 bytes to 64 KiB to keys `a0`…`a3` of `chats`, and now and then
/// replaces a key's value whole with a one-line value, forever.
///
/// Prints `begin append|write KEY SEQUENCE SIZE TIME` before each operation and
/// `ack KEY SEQUENCE TIME` when it returned. Every line is a `MarkedValue` of (writer,
/// sequence), so a line read back is whole only when every byte is that writer's. An append
/// to a key with no value yet answers false and writes nothing; the next operation on it is
/// a write.
enum AppendWriter {
    static let keys = (0..<4).map { StorageKey(.chats, "a\($0)") }

    static func run(_ run: TortureRun) async -> Never {
        let store: FileStore
        do { store = try FileStore(root: run.path) } catch { TortureRun.fail(error) }
        var generator = run.generator()
        var sequence = run.firstSequence
        var absent = Set(keys)
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
