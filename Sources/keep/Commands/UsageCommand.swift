import Foundation
import KeepApp
import KeepCLI
import KeepCore
import KeepReports

/// `keep usage`: the tokens servers counted for your answers, per model.
enum UsageCommand {
    static let since = ArgumentParser.Option(
        "--since", value: "DAYS", help: "only answers from the last DAYS days (1 to 36500)")

    static let command = Command(
        "usage", summary: "Sum the tokens servers counted for your answers, per model",
        help: """
            Reads every chat. Counts are the servers' own (sent with each streamed answer), never estimates;
            an answer whose server sent none is counted as an answer, its tokens left out.
            """,
        examples: [
            "keep usage --since 7": "Sum the tokens of the last week's answers, per model:"
        ],
        arguments: ArgumentParser(options: [since, ChatsCommand.json]), run: run)

    static func run(_ invocation: Invocation) async throws {
        var days: Int?
        if let text = invocation.arguments.value(since.name) {
            guard let number = Int(text), (1...36_500).contains(number) else {
                throw CommandFailure.usage("--since takes a whole number of days, from 1 to 36500")
            }
            days = number
        }
        let chats = ChatRepository(storage: try await ChatsCommand.storage(invocation))
        let listing: ChatListing
        do {
            listing = try await chats.scan()
        } catch {
            throw CommandFailure.failure("cannot read the chats: \(error)")
        }
        let report = UsageReport(chats: listing.chats, days: days)
        if invocation.json { return try invocation.printJSON(report) }
        invocation.console.show(text(of: report, unreadable: listing.unreadable.count))
    }

    /// The report as a table, with what it leaves out said below it.
    static func text(of report: UsageReport, unreadable: Int) -> String {
        let period = report.days.map { "the last \(ChatsCommand.count($0, "day"))" } ?? "all your chats"
        guard !report.models.isEmpty else {
            return "No answers with a model in \(period) (the echo engine has none).\n"
        }
        let header = ["MODEL", "ANSWERS", "PROMPT", "COMPLETION", "TOTAL"]
        let rows =
            report.models.map { row in
                [
                    Console.field(row.model ?? ""), "\(row.answers)", "\(row.prompt)", "\(row.completion)",
                    "\(row.total)",
                ]
            } + [
                [
                    "total", "\(report.total.answers)", "\(report.total.prompt)", "\(report.total.completion)",
                    "\(report.total.total)",
                ]
            ]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0
                    ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ") + "\n"
        }
        var text = "Tokens counted by the servers in \(period):\n" + line(header) + rows.map(line).joined()
        if report.total.uncounted > 0 {
            text += "\(ChatsCommand.count(report.total.uncounted, "answer")) came with no count from the server.\n"
        }
        if unreadable > 0 {
            text +=
                "\(ChatsCommand.count(unreadable, "chat")) cannot be read and are left out (`keep chats` lists them).\n"
        }
        return text
    }
}
