import Foundation
import Testing

/// Everything a child process writes to one descriptor, read on a thread of its own as it
/// comes, so a test can wait for a line to appear without sleeping.
///
/// Waits take a deadline only as a guard against a hang: they return as soon as the text
/// is there, and a test that hits the deadline fails and says what it saw. They fail fast,
/// long before the deadline, when the writer can never send the text: its output ended,
/// or (given `idle`) it sits waiting for keys the test has not typed, with everything it
/// wrote already read. A failed wait records an issue holding what the screen showed.
final class OutputBuffer: Sendable {
    private let state = NSCondition()
    nonisolated(unsafe) private var bytes = Data()
    nonisolated(unsafe) private var ended = false
    private let descriptor: Int32
    /// Whether the writer waits for input now (``KeepProcess/isWaitingForKeys(_:)``).
    private let idle: (@Sendable () -> Bool)?

    /// How a wait ended.
    private enum Outcome: Equatable {
        case found, ended, idle, timedOut
    }

    /// Starts reading `descriptor` until end of file (or `EIO`, a terminal whose other side
    /// closed), then closes it. `idle` says whether the writer is waiting for input.
    init(reading descriptor: Int32, idle: (@Sendable () -> Bool)? = nil) {
        self.descriptor = descriptor
        self.idle = idle
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
            // Ended first, under the lock: a waiter asks the descriptor only while it is open.
            state.lock()
            ended = true
            state.broadcast()
            state.unlock()
            close(descriptor)
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
    /// ends, or the writer waits for keys with nothing more to say, or `seconds` pass);
    /// answers whether it appeared, and records an issue with the screen when it did not.
    func wait(for needle: String, after offset: Int = 0, seconds: Double = 120) async -> Bool {
        let outcome = await blocking { self.waitBlocking(for: needle, after: offset, seconds: seconds) }
        guard outcome != .found else { return true }
        let why =
            switch outcome {
            case .ended: "the output ended"
            case .idle: "keep waits for keys, with nothing more to print"
            default: "\(Int(seconds)) s passed"
            }
        Issue.record(
            "\(needle.debugDescription) never came (\(why)); the screen after it was awaited:\n\(screen(after: offset))"
        )
        return false
    }

    /// The samples, a quarter of a second apart, for which the writer must be seen idle (and
    /// everything it wrote read) before a wait gives up: a thread woken by a key shows as
    /// running, so only a writer that truly waits is seen idle every time.
    private static let idleSamples = 4

    private func waitBlocking(for needle: String, after offset: Int, seconds: Double) -> Outcome {
        let deadline = Date(timeIntervalSinceNow: seconds)
        state.lock()
        defer { state.unlock() }
        var idleFor = 0
        while true {
            if String(decoding: bytes.dropFirst(offset), as: UTF8.self).contains(needle) { return .found }
            if ended { return .ended }
            let slice = min(deadline, Date(timeIntervalSinceNow: 0.25))
            if !state.wait(until: slice) {
                if Date() >= deadline { return .timedOut }
                idleFor = idle?() == true && unread == 0 ? idleFor + 1 : 0
                if idleFor >= Self.idleSamples { return .idle }
            }
        }
    }

    /// The bytes written that the reader has not read yet (`FIONREAD`); called with the
    /// lock held, while the descriptor is open.
    private var unread: Int32 {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? count : 0
    }

    /// What was read after `offset` (its last 3,000 characters), escape codes made visible.
    func screen(after offset: Int = 0) -> String {
        state.lock()
        defer { state.unlock() }
        let text = String(decoding: bytes.dropFirst(offset), as: UTF8.self)
        return String(text.suffix(3000)).replacingOccurrences(of: "\u{1B}", with: "^[")
            .replacingOccurrences(of: "\r", with: "")
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
