import KeepPorts

/// What a booted app works with: its settings, its chats, and the engine to start on.
public struct AppCore: Sendable {
    /// The setting that remembers the engine the user chose last.
    public static let engineKey = "engineId"

    /// The loaded settings.
    public let settings: SettingsStore
    /// The chats, on the same store.
    public let chats: ChatRepository
    /// The engine to start on: the user's last choice when there is one, else the
    /// default the composition root gave ``boot(storage:secrets:defs:defaultEngine:)``.
    public let engineId: String

    /// The core on `settings` and `chats`, starting on the engine `engineId`;
    /// ``boot(storage:secrets:defs:defaultEngine:)`` is what makes one.
    public init(settings: SettingsStore, chats: ChatRepository, engineId: String) {
        self.settings = settings
        self.chats = chats
        self.engineId = engineId
    }
}
