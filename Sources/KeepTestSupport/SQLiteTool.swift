import Foundation

/// The `sqlite3` command-line tool, as an independent client of a database keep wrote.
package enum SQLiteTool {
    /// Runs `sql` (statements or dot-commands, given on standard input) through
    /// `/usr/bin/sqlite3` on `path`; answers its output lines, or throws with its standard
    /// error when it fails.
    package static func run(_ path: String, _ sql: String) async throws -> [String] {
        try await ToolRun.run("/usr/bin/sqlite3", ["-batch", "-bail", path], input: Data(sql.utf8))
            .succeeded("sqlite3").output.split(separator: "\n").map(String.init)
    }

    /// What `/usr/bin/sqlite3` prints for `sql`, given as its last argument, on the database
    /// at `path`: the whole output, newlines included.
    package static func output(_ path: String, _ sql: String) async throws -> String {
        try await ToolRun.run("/usr/bin/sqlite3", ["-batch", "-bail", path, sql]).succeeded("sqlite3 \(sql)").output
    }
}
