/// What one question may ask of an engine beyond its settings: another model, another
/// temperature, a cap on the answer's length. `nil` leaves the engine's own choice.
///
/// An engine that has no such thing (echo has no model) ignores it.
public struct EngineOptions: Sendable, Equatable {
    /// The model to ask instead of the `model` setting.
    public var model: String?
    /// The temperature instead of the `temperature` setting (0 to 2).
    public var temperature: Double?
    /// The most tokens the answer may have (`max_tokens`); `nil` sends none.
    public var maxTokens: Int?

    /// Options that change only what is given; `nil` leaves the engine's own choice.
    public init(model: String? = nil, temperature: Double? = nil, maxTokens: Int? = nil) {
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
    }
}
