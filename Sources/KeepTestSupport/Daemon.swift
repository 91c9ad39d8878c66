import Foundation

/// A child process a test starts and always stops: a bus, a keyring, a bus monitor.
///
/// Its standard output is a pipe the test can wait on (``readUntil(_:within:)``), which is
/// how a test knows a daemon is ready without sleeping.
package final class Daemon: @unchecked Sendable {
    // @unchecked: `received` is only touched on `reader`, a serial queue, and `waiting`
    // only under `lock`.
    private let process = Process()
    private let output = Pipe()
    private let reader = DispatchQueue(label: "keep.test.daemon-reader")
    private var received = Data()
    private let lock = NSLock()
    private var waiting: UUID?

    /// Starts `name` with `arguments` in `environment`, writing `input` to its standard
    /// input and then closing it. Its standard error goes to the file `errors` when given
    /// (made or emptied), and nowhere otherwise.
    package init(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil,
        errors: String? = nil
    ) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        if let environment { process.environment = environment }
        process.standardOutput = output
        if let errors {
            guard FileManager.default.createFile(atPath: errors, contents: nil),
                let log = FileHandle(forWritingAtPath: errors)
            else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: errors]) }
            process.standardError = log
        } else {
            process.standardError = FileHandle.nullDevice
        }
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
    }

    deinit {
        stop()
    }

    /// Everything the daemon has printed, once it has printed `text`.
    ///
    /// Waits on the pipe itself. If `text` has not come within `seconds`, the daemon is
    /// stopped, which ends the wait, and this throws: a watchdog, not a delay.
    package func readUntil(_ text: String, within seconds: Double = 20) async throws -> String {
        let needle = Data(text.utf8)
        let wait = UUID()
        lock.withLock { waiting = wait }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            guard let self, lock.withLock({ waiting == wait }) else { return }
            stop()
        }
        let seen: String? = await withCheckedContinuation { continuation in
            reader.async { [self] in
                while received.range(of: needle) == nil {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    received.append(chunk)
                }
                let found = received.range(of: needle) != nil
                // Disarm the watchdog here, not after the await: resuming the waiting task
                // needs the shared pool, which a loaded machine may not give it for a while.
                lock.withLock { waiting = nil }
                continuation.resume(returning: found ? String(decoding: received, as: UTF8.self) : nil)
            }
        }
        guard let seen else { throw DaemonTimeout(text: text, seconds: seconds) }
        return seen
    }

    /// Whether the daemon is still running: `false` once it exited, or was stopped.
    package var isRunning: Bool { process.isRunning }

    /// Stops the daemon and waits for it to exit; stopping twice is fine.
    ///
    /// SIGKILL, not SIGTERM: a child inherits the signal mask of the thread that spawned
    /// it, and the threads tests run on block SIGTERM, so a daemon would never see it. The
    /// wait is `Process.waitForExit()`: a full run once hung here for good in
    /// `waitUntilExit()`, a cooperative thread blocked with it.
    package func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        _ = process.waitForExit()
    }
}

/// A daemon never printed what a test waited for.
package struct DaemonTimeout: Error, CustomStringConvertible {
    /// The text the test waited for the daemon to print.
    package let text: String
    /// How long it waited, in seconds.
    package let seconds: Double

    package var description: String { "gave up after \(seconds) s waiting for \(String(reflecting: text))" }
}
