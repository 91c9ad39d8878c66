import Foundation

/// The kept-data database as the `sqlite3` tool shows it, to look for what must not be
/// there. (Its raw bytes are scanned with KeepConformance's `RawFileScan`, which, like
/// this, reads through another process so no lock of a live connection is dropped.)
enum RawDatabaseFiles {
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
