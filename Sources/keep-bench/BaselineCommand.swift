import Foundation

/// A baseline that is a real command (`cat`, `grep`), run as a whole process in a
/// directory, its output to `/dev/null`.
enum BaselineCommand {
    /// Runs `arguments` (the executable first, found on `PATH`) in `directory`; throws when
    /// it cannot start, or when it exits other than 0 (`found`: other than 0, what `grep`
    /// answers when it found a match).
    static func run(_ arguments: [String], in directory: String, found: Bool = false) throws {
        guard let executable = arguments.first else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments.dropFirst()
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchError(.setup, "launch", "cannot start \(executable): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError(
                .setup, executable,
                "\(arguments.joined(separator: " ")) exited \(process.terminationStatus)\(found ? " (found nothing)" : "")"
            )
        }
    }
}
