import KeepApp
import KeepCLI
import KeepCore
import KeepEngines

/// The options a question may be asked with, shared by `keep ask` and `keep chat`: the
/// model, the system prompt, the answer's length and the temperature, checked here once.
enum TurnFlags {
    static let model = ArgumentParser.Option(
        "--model", "-m", value: "NAME", help: "ask the model NAME instead of the model setting")
    static let system = ArgumentParser.Option(
        "--system", value: "TEXT", help: "the system prompt, kept as the chat's own (\"\" for none)")
    static let maxTokens = ArgumentParser.Option(
        "--max-tokens", "-t", value: "N", help: "cap the answer at N tokens (maxTokens setting; 0: no cap)")
    static let temperature = ArgumentParser.Option(
        "--temperature", value: "T", help: "from 0 to 2, instead of the temperature setting")

    static let raw = ArgumentParser.Option(
        "--raw", help: "show the answer as it came, not rendered (as NO_COLOR does); a pipe always gets it so")

    static let all = [model, system, maxTokens, temperature, raw]

    /// The options `arguments` give, over `settings`; a value that does not fit is a usage error.
    static func options(_ arguments: ParsedArguments, settings: SettingsStore) throws(CommandFailure) -> TurnOptions {
        let model = arguments.value(Self.model.name)
        if let model, model.allSatisfy(\.isWhitespace) { throw .usage("--model needs a model name") }
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
            model: model, temperature: heat, maxTokens: cap, system: arguments.value(system.name), settings: settings)
    }

    /// Says once that the echo engine has no model, when `-m` named one: it is not an error
    /// (the question is still answered), but nothing else would show it was ignored.
    static func warnIfIgnored(_ options: TurnOptions, engine: any ChatEngine, console: Console) {
        guard options.engine.model != nil, engine.id == EchoEngine.engineId else { return }
        console.warning("the echo engine has no models, so --model is ignored (keep settings set engineId remote)")
    }
}
