/// The newest readings of one server, each with when it was read and whether it is fresh.
public struct ServerReadings: Sendable, Equatable {
    /// The server the readings are of.
    public let server: ServerAddress
    /// Its model list, when one was read and kept.
    public var models: KeptReading<ModelList>?
    /// Its health, when it was read and kept.
    public var health: KeptReading<ServerHealth>?

    /// The readings of `server`, `nil` for one never read and kept.
    public init(server: ServerAddress, models: KeptReading<ModelList>? = nil, health: KeptReading<ServerHealth>? = nil)
    {
        self.server = server
        self.models = models
        self.health = health
    }
}
