/// A role: a named system prompt, with the model and temperature it asks with when it
/// says, as `keep roles add` records it.
public struct RoleProfile: Sendable, Equatable {
    /// The name `-r` and `/role` take: `coder`, `translator`.
    public let name: String
    /// The system prompt sent ahead of every question asked in this role.
    public var system: String
    /// The model it asks (a model, an alias or `SERVER/MODEL`); `nil` for the server's own.
    public var model: String?
    /// The temperature it asks with, 0 to 2; `nil` for the setting's.
    public var temperature: Double?

    /// The role `name`, sending `system`.
    public init(name: String, system: String, model: String? = nil, temperature: Double? = nil) {
        self.name = name
        self.system = system
        self.model = model
        self.temperature = temperature
    }
}
