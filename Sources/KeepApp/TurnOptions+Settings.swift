import KeepConversation
import KeepCore
import KeepEngines

extension TurnOptions {
    /// The options for a turn: those given for it (`nil` where not given) over the settings
    /// (`temperature` and `model` are the engine's own; `maxTokens` 0 sends no cap; the
    /// `system` setting is ``TurnOptions/defaultSystem``).
    package static func given(
        model: String? = nil, temperature: Double? = nil, maxTokens: Int? = nil, system: String? = nil,
        settings: SettingsStore
    ) -> TurnOptions {
        let settingCap = settings.value(SettingRegistry.maxTokens.key)?.number.flatMap { Int(exactly: $0) }
        let cap = maxTokens ?? settingCap
        return TurnOptions(
            engine: EngineOptions(model: model, temperature: temperature, maxTokens: cap == 0 ? nil : cap),
            system: system, defaultSystem: settings.value(SettingRegistry.system.key)?.string)
    }
}
