import Foundation

/// Everything a child process writes to one descriptor, read on a thread of its own as it
/// comes, so a test can wait for a line to appear without sleeping.
///
/// Waits take a deadline only as a guard against a hang: they return as soon as the text
/// is there, and a test that hits the deadline fails and says what it saw.
final class OutputBuffer: Sendable {
    private let state = NSCondition()
    nonisolated(unsafe) private var bytes = Data()
    nonisolated(unsafe) private var ended = false

    /// Starts reading `descriptor` until end of file (or `EIO`, a terminal whose other side
    /// closed), then closes it.
    init(reading descriptor: Int32) {
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                state.lock()
                bytes.append(contentsOf: chunk[..<count])
                state.broadcast()
                state.unlock()
            }
            close(descriptor)
            state.lock()
            ended = true
            state.broadcast()
            state.unlock()
        }.start()
    }

    /// What was read so far, as text.
    var text: String {
        state.lock()
        defer { state.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// How many bytes were read so far: an offset for ``wait(for:after:seconds:)``.
    var count: Int {
        state.lock()
        defer { state.unlock() }
        return bytes.count
    }

    /// Waits until `needle` appears after the first `offset` bytes (or the output
    /// ends, or `seconds` pass); answers whether it appeared.
    func wait(for needle: String, after offset: Int = 0, seconds: Double = 120) async -> Bool {
        await blocking {
            let deadline = Date(timeIntervalSinceNow: seconds)
            self.state.lock()
            defer { self.state.unlock() }
            while true {
                if String(decoding: self.bytes.dropFirst(offset), as: UTF8.self).contains(needle) { return true }
                if self.ended || !self.state.wait(until: deadline) { return false }
            }
        }
    }

    /// Waits until the output ends (or `seconds` pass), and answers all of it.
    func waitForEnd(seconds: Double = 60) async -> String {
        await blocking {
            let deadline = Date(timeIntervalSinceNow: seconds)
            self.state.lock()
            while !self.ended, self.state.wait(until: deadline) {}
            self.state.unlock()
            return self.text
        }
    }

    /// Runs a blocking wait on a thread of its own, off the shared cooperative pool.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in
            Thread { done.resume(returning: body()) }.start()
        }
    }
}
