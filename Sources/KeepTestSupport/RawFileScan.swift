import Foundation

/// Looks for bytes in files on disk, reading them through another process, to prove that
/// something (a secret, a plaintext value) never reached a file.
///
/// The files are never opened by this process: closing any descriptor of a file drops
/// every POSIX lock this process holds on it, so an in-process scan of a directory where
/// a SQLite database is open (this test's or a concurrent one's) could strip a live
/// connection of its locks. A scan proves a negative only beside its positive: first show
/// that the same scan finds a planted marker.
package enum RawFileScan {
    /// The paths of the regular files directly in `directory` whose bytes contain
    /// `needle`, which may be any bytes (each file is read whole through `cat`).
    package static func files(in directory: String, containing needle: [UInt8]) async throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let needle = Data(needle)
        var found: [String] = []
        for path in names.map({ (directory as NSString).appendingPathComponent($0) }) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            let bytes = try await ToolRun.run("/bin/cat", ["--", path]).succeeded("cat \(path)").outputBytes
            if bytes.range(of: needle) != nil { found.append(path) }
        }
        return found
    }

    /// The paths of the regular files anywhere under `roots` whose bytes contain `text`
    /// (`grep -r`: symbolic links below the roots are not followed). A file that vanishes
    /// while the scan runs, as other tests' files do, is passed over.
    package static func files(under roots: [String], containing text: String) async throws -> [String] {
        guard !text.isEmpty, !text.contains("\n") else {
            throw ScanFailure(message: "a text to scan for must be one non-empty line")
        }
        // -r: recursive; -a: binary files as text; -F: the needle as it is; -l: the files.
        let grep = try await ToolRun.run("/usr/bin/grep", ["-r", "-a", "-F", "-l", "-e", text, "--"] + roots)
        let found = grep.output.split(separator: "\n").map(String.init)
        let complaints = grep.errors.split(separator: "\n")
        // grep answers 0 when it found the text, 1 when not, 2 when something went wrong;
        // a file that vanished mid-scan is the one kind of wrong that is not the scan's.
        guard
            grep.status == 0 || grep.status == 1
                || complaints.allSatisfy({ $0.hasSuffix("No such file or directory") })
        else { throw ScanFailure(message: "grep: \(complaints.joined(separator: "; "))") }
        return found.sorted()
    }

    /// A scan that could not look: it proves nothing either way.
    package struct ScanFailure: Error, CustomStringConvertible {
        /// What stopped the scan, as the tool said it.
        package let message: String
        package var description: String { "the scan failed: \(message)" }
    }
}
