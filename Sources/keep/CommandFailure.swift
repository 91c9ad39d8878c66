import KeepCore
import KeepReports

/// Why a command stopped, and so how `keep` ends: the line (or screen) it prints and the
/// exit status.
enum CommandFailure: Error, Sendable {
    /// The command failed: `keep: <message>` on standard error, exit 1.
    case failure(String)
    /// The command line does not fit: the message and the command's usage, exit 2.
    case usage(String)
    /// The command already said why it failed (a report with problems): exit 1, nothing more.
    case silent
    /// The store could not be reached at boot: the crash screen, exit 1.
    case bootFailed(BootResult.Reason, detail: String)

    /// A failure whose message is `error`'s line: its own description, with an engine's
    /// remedy said as a command (``CommandAdvice/line(for:)``).
    static func because(_ error: some Error) -> CommandFailure {
        .failure(CommandAdvice.line(for: error))
    }
}
