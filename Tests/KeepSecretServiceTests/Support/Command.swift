import Foundation

/// A command run to completion by a test, with what it printed.
///
/// The command is found on `PATH` (through `/usr/bin/env`). Its output is read from pipes
/// while it runs, so a chatty command never blocks, and nothing it prints (secret-tool
/// prints secrets) is ever written to a file.
struct Command: Sendable {
    let status: Int32
    let output: String
    let errors: String

    /// Runs `name` with `arguments`, in `environment` (this process's when `nil`), with
    /// `input` on its standard input, and waits for it to exit.
    static func run(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) async throws -> Command {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
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
        return Command(status: status, output: await printed, errors: await complained)
    }

    /// Whether `name` is an executable on `PATH`.
    static func isInstalled(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }

    /// Throws with what the command printed unless it exited 0.
    @discardableResult
    func succeeded(_ what: String) throws -> Command {
        guard status == 0 else { throw CommandFailure(what: what, status: status, errors: errors) }
        return self
    }

    /// Everything left in `pipe`, read on a thread of its own (the read blocks).
    private static func readToEnd(_ pipe: Pipe) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }
}

/// A command a test depends on exited with a failure.
struct CommandFailure: Error, CustomStringConvertible {
    let what: String
    let status: Int32
    let errors: String

    var description: String { "\(what) exited \(status): \(errors)" }
}
