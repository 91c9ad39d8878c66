import KeepPorts

/// A stored chat that cannot be read, and why, so the app can show it rather than hide it.
public struct UnreadableChat: Sendable, Equatable, CustomStringConvertible {
    /// The chat's id in the `chats` namespace.
    public let id: String
    /// What is wrong with it, in words; never its contents.
    public let reason: String

    /// The chat `id`, unreadable because of `reason`.
    public init(id: String, reason: String) {
        self.id = id
        self.reason = reason
    }

    public var description: String { "chat \(StorageError.quoted(id)) cannot be read: \(reason)" }
}
