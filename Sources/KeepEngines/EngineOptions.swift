/// What one question may ask of an engine beyond its settings: another model, another
/// temperature, a cap on the answer's length. `nil` leaves the engine's own choice.
///
/// An engine that has no such thing (echo has no model) ignores it.
package struct EngineOptions: Sendable, Equatable {
    /// The model to ask instead of the `model` setting.
    package var model: String?
    /// The temperature instead of the `temperature` setting (0 to 2).
    package var temperature: Double?
    /// The most tokens the answer may have (`max_tokens`); `nil` sends none.
    package var maxTokens: Int?

    /// Options that change only what is given; `nil` leaves the engine's own choice.
    package init(model: String? = nil, temperature: Double? = nil, maxTokens: Int? = nil) {
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
    }
}
