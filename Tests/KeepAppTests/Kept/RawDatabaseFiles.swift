import Foundation

/// The kept-data database as bytes on disk and as the `sqlite3` tool shows it, to look
/// for what must not be there.
///
/// The bytes are read by another process (`grep`), never by this one: closing a
/// descriptor of the database drops every POSIX lock this process holds on it, and a
/// live connection without its locks can lose its WAL to the next `sqlite3` run.
enum RawDatabaseFiles {
    /// The files in `directory` (the database, its WAL and shared memory) whose raw bytes
    /// contain `needle`.
    static func files(in directory: String, containing needle: String) throws -> [String] {
        let paths = try names(in: directory).sorted().map { directory + "/" + $0 }
        guard !paths.isEmpty else { return [] }
        // -a: binary files as text; -F: the needle as it is; -l: the files that hold it.
        let (status, output, problems) = try run("/usr/bin/grep", ["-a", "-F", "-l", "-e", needle, "--"] + paths)
        // grep answers 0 when it found the needle, 1 when it did not, 2 on a failure.
        guard status == 0 || status == 1 else { throw failure("grep: \(problems)") }
        return output.split(separator: "\n").map { String($0.dropFirst(directory.count + 1)) }
    }

    static func names(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
    }

    /// What `/usr/bin/sqlite3` prints for `command` on the database at `path`.
    static func sqlite3(_ path: String, _ command: String) throws -> String {
        let (status, output, problems) = try run("/usr/bin/sqlite3", ["-batch", "-bail", path, command])
        guard status == 0 else { throw failure("sqlite3 \(command): \(problems)") }
        return output
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, problems)
    }

    private static func failure(_ message: String) -> CocoaError {
        CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
