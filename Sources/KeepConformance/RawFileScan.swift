import Foundation

/// Looks for bytes in files on disk, reading them through another process, to prove that
/// something (a secret, a plaintext value) never reached a file.
///
/// The files are never opened by this process: closing any descriptor of a file drops
/// every POSIX lock this process holds on it, so an in-process scan of a directory where
/// a SQLite database is open (this test's or a concurrent one's) could strip a live
/// connection of its locks. A scan proves a negative only beside its positive: first show
/// that the same scan finds a planted marker.
public enum RawFileScan {
    /// The paths of the regular files directly in `directory` whose bytes contain
    /// `needle`, which may be any bytes (each file is read whole through `cat`).
    public static func files(in directory: String, containing needle: [UInt8]) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let needle = Data(needle)
        return try names.map { (directory as NSString).appendingPathComponent($0) }.filter { path in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { return false }
            let (status, bytes, problems) = try run("/bin/cat", ["--", path])
            guard status == 0 else { throw ScanFailure(message: "cat \(path): \(problems)") }
            return bytes.range(of: needle) != nil
        }
    }

    /// The paths of the regular files anywhere under `roots` whose bytes contain `text`
    /// (`grep -r`: symbolic links below the roots are not followed). A file that vanishes
    /// while the scan runs, as other tests' files do, is passed over.
    public static func files(under roots: [String], containing text: String) throws -> [String] {
        guard !text.isEmpty, !text.contains("\n") else {
            throw ScanFailure(message: "a text to scan for must be one non-empty line")
        }
        // -r: recursive; -a: binary files as text; -F: the needle as it is; -l: the files.
        let (status, output, problems) = try run(
            "/usr/bin/grep", ["-r", "-a", "-F", "-l", "-e", text, "--"] + roots)
        let found = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        let complaints = String(decoding: problems, as: UTF8.self).split(separator: "\n")
        // grep answers 0 when it found the text, 1 when not, 2 when something went wrong;
        // a file that vanished mid-scan is the one kind of wrong that is not the scan's.
        guard status == 0 || status == 1 || complaints.allSatisfy({ $0.hasSuffix("No such file or directory") })
        else { throw ScanFailure(message: "grep: \(complaints.joined(separator: "; "))") }
        return found.sorted()
    }

    /// A scan that could not look: it proves nothing either way.
    public struct ScanFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "the scan failed: \(message)" }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, Data, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Both pipes drained at once, so a child that fills one never blocks on it.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorBytes = Data()
        DispatchQueue.global().async(group: group) { errorBytes = errors.fileHandleForReading.readDataToEndOfFile() }
        let outputBytes = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, outputBytes, errorBytes)
    }
}
