import Foundation
import KeepConformance
import KeepTestSupport

/// The kept-data database as the `sqlite3` tool shows it, to look for what must not be
/// there. (Its raw bytes are scanned with KeepConformance's `RawFileScan`, which, like
/// this, reads through another process so no lock of a live connection is dropped.)
enum RawDatabaseFiles {
    /// What `/usr/bin/sqlite3` prints for `command` on the database at `path`.
    static func sqlite3(_ path: String, _ command: String) async throws -> String {
        try await ToolRun.run("/usr/bin/sqlite3", ["-batch", "-bail", path, command]).succeeded("sqlite3 \(command)")
            .output
    }
}
