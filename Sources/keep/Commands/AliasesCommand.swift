import KeepApp
import KeepCLI
import KeepCore
import KeepReports

/// `keep aliases`: short names for a server and a model, taken wherever `-m` is.
enum AliasesCommand {
    static let command = Command(
        "aliases", summary: "List the model aliases; set or remove one",
        help: """
            An alias stands for SERVER/MODEL: `-m NAME` (and `/model NAME`, and a role's model) then asks that
            model at that server. They live in the servers file (settings/profiles).
            """,
        examples: [
            "keep aliases": "List the aliases:",
            "keep aliases set fast local/qwen3 && keep ask -m fast \"hello\"":
                "Name qwen3 at the server local fast, then ask it:",
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json.described("print the aliases as one JSON object")]),
        subcommands: [set, remove], run: list)

    static let set = Command(
        "set", summary: "Make NAME stand for SERVER/MODEL",
        examples: ["keep aliases set sonnet claude/claude-sonnet-4-5": "Make -m sonnet ask that model at claude:"],
        arguments: ArgumentParser(required: ["NAME", "SERVER/MODEL"]), run: setAlias)

    static let remove = Command(
        "rm", summary: "Remove the alias NAME", examples: ["keep aliases rm fast": "Remove the alias fast:"],
        arguments: ArgumentParser(required: ["NAME"]), run: removeAlias)

    static func list(_ invocation: Invocation) async throws {
        let core = try await invocation.core()
        let report = AliasesReport(await invocation.composition.serverBook(core).profiles)
        if invocation.json { return try invocation.printJSON(report) }
        if report.aliases.isEmpty, report.refused.isEmpty {
            invocation.console.out("No aliases yet: keep aliases set NAME SERVER/MODEL makes one.\n")
        }
        let width = report.aliases.map(\.name.count).max() ?? 0
        for alias in report.aliases {
            invocation.console.show(
                "  \(alias.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(alias.target)\n")
        }
        for refused in report.refused { invocation.console.show("  not used: \(refused.entry): \(refused.reason)\n") }
    }

    static func setAlias(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        let target = invocation.positional(1) ?? ""
        if let problem = Profiles.nameProblem(name) { throw CommandFailure.usage("NAME: \(problem)") }
        if let problem = Profiles.aliasTargetProblem(target) { throw CommandFailure.usage("SERVER/MODEL: \(problem)") }
        let core = try await invocation.core()
        let book = await invocation.composition.serverBook(core)
        let server = String(target.prefix { $0 != "/" })
        guard book.server(server) != nil else {
            throw CommandFailure.failure("there is no server \"\(server)\"; keep servers lists them")
        }
        try await ServersCommand.edit(invocation) { profiles throws(CommandFailure) in profiles.setAlias(name, target) }
        invocation.console.show("-m \(name) now asks \(target).\n")
    }

    static func removeAlias(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        try await ServersCommand.edit(invocation) { profiles throws(CommandFailure) in
            guard profiles.removeAlias(name) else {
                throw .failure("there is no alias \"\(name)\"; keep aliases lists them")
            }
        }
        invocation.console.show("Alias \(name) removed.\n")
    }
}
