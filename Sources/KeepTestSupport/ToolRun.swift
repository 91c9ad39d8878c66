import Foundation

/// A command-line tool run to completion by a test, with what it printed: the way tests
/// reach the independent clients (`sqlite3`, `secret-tool`, `dbus-send`, `grep`).
///
/// The tool is found on `PATH` (through `/usr/bin/env`) unless given as an absolute path.
/// Both output pipes are drained while it runs, so a chatty tool never blocks on a full
/// pipe, and nothing it prints (`secret-tool lookup` prints a secret) goes to a file. The
/// caller is suspended meanwhile, holding no thread.
package struct ToolRun: Sendable {
    /// The tool's exit status: 0 for success.
    package let status: Int32
    /// Everything the tool wrote to standard output, as bytes.
    package let outputBytes: Data
    /// Everything the tool wrote to standard error, as text.
    package let errors: String

    /// Standard output, as text.
    package var output: String { String(decoding: outputBytes, as: UTF8.self) }

    /// Runs `tool` with `arguments`, in `environment` (this process's when `nil`), with
    /// `input` on its standard input, and waits for it to exit.
    package static func run(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) async throws -> ToolRun {
        let process = Process()
        if tool.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        let exited = AsyncStream<Int32> { continuation in
            process.terminationHandler = {
                continuation.yield($0.terminationStatus)
                continuation.finish()
            }
        }
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        async let printed = readToEnd(output)
        async let complained = readToEnd(errors)
        var status: Int32 = -1
        for await code in exited { status = code }
        return ToolRun(
            status: status, outputBytes: await printed, errors: String(decoding: await complained, as: UTF8.self))
    }

    /// Whether `name` is an executable on `PATH`.
    package static func isInstalled(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }

    /// This run, or a ``ToolFailure`` with what the tool said unless it exited 0.
    @discardableResult
    package func succeeded(_ what: String) throws -> ToolRun {
        guard status == 0 else { throw ToolFailure(what: what, status: status, errors: errors) }
        return self
    }

    /// Everything left in `pipe`, read on a thread of its own (the read blocks).
    private static func readToEnd(_ pipe: Pipe) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile())
            }
        }
    }
}

/// A tool a test depends on exited with a failure.
package struct ToolFailure: Error, CustomStringConvertible {
    /// What was run, in words.
    package let what: String
    /// The tool's exit status.
    package let status: Int32
    /// What the tool wrote to standard error.
    package let errors: String

    /// The failure of `what`, which exited with `status` and said `errors`.
    package init(what: String, status: Int32, errors: String) {
        self.what = what
        self.status = status
        self.errors = errors
    }

    package var description: String { "\(what) exited \(status): \(errors)" }
}
