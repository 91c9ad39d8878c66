import KeepApp
import KeepCLI
import KeepConversation
import KeepCore
import KeepEngines
import KeepReports

/// The options a question may be asked with, shared by `keep ask` and `keep chat`: the
/// server, the model, the role, the system prompt, the answer's length and the temperature,
/// checked here once.
enum TurnFlags {
    static let server = ArgumentParser.Option(
        "--server", "-s", value: "NAME", help: "ask the server NAME (keep servers lists them) instead of the default")
    static let model = ArgumentParser.Option(
        "--model", "-m", value: "NAME",
        help: "ask the model NAME, an alias (keep aliases), or SERVER/MODEL, instead of the server's own")
    static let role = ArgumentParser.Option(
        "--role", "-r", value: "NAME", help: "ask in the role NAME (keep roles): its system prompt, model, temperature")
    static let system = ArgumentParser.Option(
        "--system", value: "TEXT", help: "the system prompt, kept as the chat's own (\"\" for none)")
    static let maxTokens = ArgumentParser.Option(
        "--max-tokens", "-t", value: "N", help: "cap the answer at N tokens (maxTokens setting; 0: no cap)")
    static let temperature = ArgumentParser.Option(
        "--temperature", value: "T", help: "from 0 to 2, instead of the temperature setting")

    static let raw = ArgumentParser.Option(
        "--raw", help: "show the answer as it came, not rendered (as NO_COLOR does); a pipe always gets it so")

    static let all = [server, model, role, system, maxTokens, temperature, raw]

    /// The options and the choice of server `arguments` give, over the servers file and the
    /// settings; a value that does not fit is a usage error, a server, alias or role that is not
    /// there a failure naming those that are.
    static func turn(
        _ arguments: ParsedArguments, core: AppCore, book: ServerBook
    ) throws(CommandFailure) -> (options: TurnOptions, choice: TurnChoice) {
        let model = arguments.value(Self.model.name)
        if let model, model.allSatisfy(\.isWhitespace) { throw .usage("--model needs a model name") }
        let choice: TurnChoice
        do {
            choice = try book.choose(
                server: arguments.value(server.name), model: model, role: arguments.value(role.name))
        } catch {
            throw .failure(error.message)
        }
        var options = try options(arguments, settings: core.settings, model: choice.model, role: choice.role)
        options.role = choice.role?.name
        return (options, choice)
    }

    /// The options `arguments` give, over `settings`; a value that does not fit is a usage error.
    /// `model` and `role` are the choice's (``turn(_:core:book:)``).
    static func options(
        _ arguments: ParsedArguments, settings: SettingsStore, model: String?, role: RoleProfile? = nil
    ) throws(CommandFailure) -> TurnOptions {
        var cap: Int?
        if let text = arguments.value(maxTokens.name) {
            guard let number = Int(text), (0...SettingRegistry.maxTokensLimit).contains(number) else {
                throw .usage("--max-tokens must be \(SettingRegistry.maxTokens.rule)")
            }
            cap = number
        }
        var heat: Double?
        if let text = arguments.value(temperature.name) {
            guard let number = Double(text), number.isFinite, (0...2).contains(number) else {
                throw .usage("--temperature must be \(SettingRegistry.temperature.rule)")
            }
            heat = number
        }
        return TurnOptions.given(
            model: model, temperature: heat ?? role?.temperature, maxTokens: cap,
            system: arguments.value(system.name) ?? role?.system, settings: settings)
    }

    /// Says once that the echo engine has no model, when `-m` named one: it is not an error
    /// (the question is still answered), but nothing else would show it was ignored.
    static func warnIfIgnored(_ options: TurnOptions, engine: any ChatEngine, console: Console) {
        guard options.engine.model != nil, engine.id == EchoEngine.engineId else { return }
        console.warning("the echo engine has no models, so --model is ignored (keep settings set engineId remote)")
    }

    /// The dim line for turns left out of a request by the server's context budget.
    static func leftOutLine(_ count: Int) -> String {
        "(\(Plural.of(count, "earlier turn")) left out of this request to fit the server's context budget; "
            + "the chat keeps them)"
    }
}
