import Foundation

/// Starts a command as a whole process, with a data home of the bench's and otherwise the
/// bench's own session, and waits for it to exit.
struct Launcher: Sendable {
    /// The `HOME` the child gets: a directory of the run's, never the user's.
    let home: String

    /// What a run printed, when asked to keep it.
    struct Run {
        let status: Int32
        let output: Data
        let error: String
    }

    /// Runs `executable` with `arguments`; its output goes to `/dev/null` unless
    /// `captureIn` names a directory to keep it in. Throws when it cannot be started.
    @discardableResult
    func run(
        _ executable: String, _ arguments: [String], dataHome: String, captureIn directory: String? = nil
    )
        throws -> Run
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment(dataHome: dataHome)
        let output = directory.map { $0 + "/stdout" }
        let error = directory.map { $0 + "/stderr" }
        for path in [output, error].compactMap({ $0 }) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw BenchError(.setup, "launch", "cannot create \(path) for the output of \(executable)")
            }
        }
        process.standardOutput =
            try output.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
        process.standardError =
            try error.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchError(.setup, "launch", "cannot start \(executable): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            output: output.flatMap { FileManager.default.contents(atPath: $0) } ?? Data(),
            error: error.flatMap { FileManager.default.contents(atPath: $0) }.map {
                String(decoding: $0, as: UTF8.self)
            } ?? "")
    }

    /// The environment a child gets: the bench's home and `dataHome`, and the bench's session.
    func environment(dataHome: String) -> [String: String] {
        var environment = [
            "HOME": home, "XDG_DATA_HOME": dataHome, "XDG_CONFIG_HOME": home + "/.config",
            "XDG_CACHE_HOME": home + "/.cache", "LANG": "C.UTF-8",
        ]
        // The bench's session, so a keyring it can reach is the one the child reaches.
        for name in ["PATH", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
            environment[name] = ProcessInfo.processInfo.environment[name]
        }
        return environment
    }
}
