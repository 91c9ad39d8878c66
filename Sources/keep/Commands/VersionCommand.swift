import KeepApp
import KeepCLI
import KeepCore

/// `keep version` (and `keep --version`): which keep this is.
enum VersionCommand {
    static let command = Command(
        "version", summary: "Print keep's version (also `keep --version`)",
        examples: [
            "keep --version": "Print the version:",
            "keep version --json": "Print the version and the chat format as JSON:",
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json]), run: run)

    /// What `keep version --json` prints.
    struct Report: Codable, Sendable {
        let version: String
        /// The chat format this keep writes (and the newest it reads).
        let chatFormat: Int
    }

    /// `keep 0.3.0`, the line `--version` prints.
    static var line: String { "keep \(KeepVersion.text)\n" }

    static func run(_ invocation: Invocation) async throws {
        if invocation.json {
            return try invocation.printJSON(Report(version: KeepVersion.text, chatFormat: ChatRepository.formatVersion))
        }
        invocation.console.out(line)
    }
}
