/// The address of one stored value: a namespace from the closed set and an id within it.
///
/// Ids are any string; adapters decide how to store them and refuse, with
/// ``StorageError/Code/invalidId``, the ones they cannot hold (every adapter refuses the
/// empty id). Two ids that differ only in case are two keys.
public struct StorageKey: Hashable, Sendable, CustomStringConvertible {
    public let namespace: Namespace
    public let id: String

    public init(_ namespace: Namespace, _ id: String) {
        self.namespace = namespace
        self.id = id
    }

    /// `chats/"c1"`: the namespace and the id, the id quoted so that spaces, control
    /// characters and empty ids are visible in an error message.
    public var description: String {
        "\(namespace.rawValue)/\(StorageError.quoted(id))"
    }
}
