import Foundation
import KeepTestSupport

/// Another process holding a database's write lock: the `sqlite3` shell inside
/// `BEGIN IMMEDIATE`, until ``release()``.
///
/// ``hold(_:)`` returns once the shell says it holds the lock; the shell's output is read
/// on a thread of its own, so the wait holds up no thread of Swift's shared pool.
final class WriteLockHolder: Sendable {
    private let process: Process
    private let input: FileHandle

    private init(process: Process, input: FileHandle) {
        self.process = process
        self.input = input
    }

    /// Starts `sqlite3` on `path`, takes the write lock and writes a row into `table`
    /// inside the open transaction.
    static func hold(_ path: String, table: String) async throws -> WriteLockHolder {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let holder = WriteLockHolder(process: process, input: stdin.fileHandleForWriting)
        try holder.input.write(
            contentsOf: Data("BEGIN IMMEDIATE;\nINSERT INTO \(table) VALUES (0);\n.print held\n".utf8))
        let said = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            Thread {
                var text = ""
                while !text.contains("held\n") {
                    let data = stdout.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    text += String(decoding: data, as: UTF8.self)
                }
                done.resume(returning: text)
            }.start()
        }
        guard said.contains("held\n") else {
            holder.release()
            throw HolderFailure(description: "sqlite3 did not take the write lock")
        }
        return holder
    }

    /// Commits and ends the shell, letting the waiting connections in.
    func release() {
        try? input.write(contentsOf: Data("COMMIT;\n.quit\n".utf8))
        try? input.close()
        _ = process.waitForExit()
    }

    struct HolderFailure: Error, CustomStringConvertible {
        let description: String
    }
}
