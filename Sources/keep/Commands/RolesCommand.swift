import KeepApp
import KeepCLI
import KeepCore
import KeepReports

/// `keep roles`: named system prompts, with the model and temperature they ask with.
enum RolesCommand {
    static let systemOption = ArgumentParser.Option("--system", value: "TEXT", help: "the role's system prompt")
    static let modelOption = ArgumentParser.Option(
        "--model", "-m", value: "NAME", help: "the model it asks: a model, an alias or SERVER/MODEL")
    static let temperatureOption = ArgumentParser.Option(
        "--temperature", value: "T", help: "the temperature it asks with, from 0 to 2")

    static let command = Command(
        "roles", summary: "List the roles; add, show or remove one",
        help: """
            A role is a system prompt with a name, and the model and temperature it asks with when it says.
            `ask -r NAME`, `chat -r NAME` and `/role NAME` ask in it; its system prompt becomes the chat's own.
            They live in the servers file (settings/profiles).
            """,
        examples: [
            "keep roles": "List the roles:",
            "keep ask -r coder \"a function that reverses a list\"": "Ask in the role coder:",
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json.described("print the roles as one JSON object")]),
        subcommands: [add, show, remove], run: list)

    static let add = Command(
        "add", summary: "Add the role NAME, or replace the one of that name",
        examples: [
            "keep roles add translator --system \"Translate into French.\"": "A role that translates:",
            "keep roles add coder --system \"Code only.\" -m fast --temperature 0.2":
                "One that answers in code, with the alias fast, at a low temperature:",
        ],
        arguments: ArgumentParser(options: [systemOption, modelOption, temperatureOption], required: ["NAME"]),
        run: addRole)

    static let show = Command(
        "show", summary: "Show the role NAME", examples: ["keep roles show coder": "Show the role coder:"],
        arguments: ArgumentParser(
            options: [ChatsCommand.json.described("print the role as one JSON object")], required: ["NAME"]),
        run: showRole)

    static let remove = Command(
        "rm", summary: "Remove the role NAME", examples: ["keep roles rm coder": "Remove the role coder:"],
        arguments: ArgumentParser(required: ["NAME"]), run: removeRole)

    static func list(_ invocation: Invocation) async throws {
        let core = try await invocation.core()
        let report = RolesReport(await invocation.composition.serverBook(core).profiles)
        if invocation.json { return try invocation.printJSON(report) }
        if report.roles.isEmpty, report.refused.isEmpty {
            invocation.console.out("No roles yet: keep roles add NAME --system TEXT makes one.\n")
        }
        for role in report.roles { invocation.console.show("  \(role.name)  \(summary(role))\n") }
        for refused in report.refused { invocation.console.show("  not used: \(refused.entry): \(refused.reason)\n") }
    }

    private static func summary(_ role: RolesReport.Role) -> String {
        var parts: [String] = []
        if let model = role.model { parts.append("model \(model)") }
        if let temperature = role.temperature { parts.append("temperature \(temperature)") }
        let system = role.system.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return (parts.isEmpty ? "" : "(" + parts.joined(separator: ", ") + ") ")
            + (system.count > 60 ? String(system.prefix(59)) + "…" : system)
    }

    static func addRole(_ invocation: Invocation) async throws {
        let arguments = invocation.arguments
        let name = invocation.positional(0) ?? ""
        if let problem = Profiles.nameProblem(name) { throw CommandFailure.usage("NAME: \(problem)") }
        guard let system = arguments.value(systemOption.name) else {
            throw CommandFailure.usage("--system TEXT is needed")
        }
        let model = arguments.value(modelOption.name)
        if let model, model.allSatisfy(\.isWhitespace) { throw CommandFailure.usage("--model needs a model name") }
        var temperature: Double?
        if let text = arguments.value(temperatureOption.name) {
            guard let number = Double(text), number.isFinite, (0...2).contains(number) else {
                throw CommandFailure.usage("--temperature must be a number from 0 to 2")
            }
            temperature = number
        }
        let role = RoleProfile(name: name, system: system, model: model, temperature: temperature)
        try await ServersCommand.edit(invocation) { profiles throws(CommandFailure) in profiles.set(role) }
        invocation.console.show("Role \(name) kept: keep ask -r \(name) asks in it.\n")
    }

    static func showRole(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        let core = try await invocation.core()
        guard let role = await invocation.composition.serverBook(core).profiles.role(name) else {
            throw CommandFailure.failure("there is no role \"\(name)\"; keep roles lists them")
        }
        let report = RolesReport.Role(role)
        if invocation.json { return try invocation.printJSON(report) }
        var text = "Role \(role.name)\n"
        if let model = role.model { text += "Model: \(model)\n" }
        if let temperature = role.temperature { text += "Temperature: \(temperature)\n" }
        text += "System prompt:\n\(role.system)\n"
        invocation.console.show(text)
    }

    static func removeRole(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        try await ServersCommand.edit(invocation) { profiles throws(CommandFailure) in
            guard profiles.removeRole(name) else {
                throw .failure("there is no role \"\(name)\"; keep roles lists them")
            }
        }
        invocation.console.show("Role \(name) removed.\n")
    }
}
