/// The newest readings of one server, each with when it was read and whether it is fresh.
package struct ServerReadings: Sendable, Equatable {
    /// The server the readings are of.
    package let server: ServerAddress
    /// Its model list, when one was read and kept.
    package var models: KeptReading<ModelList>?
    /// Its health, when it was read and kept.
    package var health: KeptReading<ServerHealth>?
    /// What it said of its models' context windows, when it was asked.
    package var windows: KeptReading<ContextWindows>?

    /// The readings of `server`, `nil` for one never read and kept.
    package init(server: ServerAddress, models: KeptReading<ModelList>? = nil, health: KeptReading<ServerHealth>? = nil)
    {
        self.server = server
        self.models = models
        self.health = health
    }
}
