import KeepApp
import KeepCLI
import KeepReports

/// `keep doctor`: what is healthy, and what needs the user.
enum DoctorCommand {
    static let command = Command(
        "doctor", summary: "Check the data root, the store, the settings, the chats and the keychain",
        help: "Exits 1 when something needs you (each such line says what to do), 0 otherwise. It changes "
            + "none of your data and contacts no server.",
        examples: [
            "keep doctor": "Check everything keep depends on:",
            "keep doctor --json | jq '.checks[] | select(.status == \"problem\")'": "Print only the problems, as JSON:",
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json]), run: run)

    static func run(_ invocation: Invocation) async throws {
        let report = await Doctor.examine(invocation.composition)
        if invocation.json {
            try invocation.printJSON(report)
        } else {
            var text = "Data root: \(report.dataRoot ?? "(none)")\n"
            let width = report.checks.map(\.name.count).max() ?? 0
            for check in report.checks {
                text += "  \(check.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) "
                text += "\(check.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(check.detail)\n"
                if let advice = check.advice, check.status == .problem {
                    text += "  \(String(repeating: " ", count: 8 + width))  → \(advice)\n"
                }
            }
            text += report.needsUser ? "Something needs your attention.\n" : "All is well.\n"
            // Details quote ids, paths and settings from disk: neutralised.
            invocation.console.show(text)
        }
        if report.needsUser { throw CommandFailure.silent }
    }
}
