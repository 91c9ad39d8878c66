/// The address of one stored value: a namespace from the closed set and an id within it.
///
/// Ids are any string; adapters decide how to store them and refuse, with
/// ``StorageError/Code/invalidId``, the ones they cannot hold (every adapter refuses the
/// empty id). Two ids that differ only in case are two keys.
public struct StorageKey: Hashable, Sendable, CustomStringConvertible {
    /// Which of the closed set of places the value is in.
    public let namespace: Namespace
    /// The value's id within the namespace: any string, case included; an adapter refuses
    /// the ones it cannot hold.
    public let id: String

    /// The key of `id` in `namespace`. Nothing is checked here: the adapter refuses an id
    /// it cannot store when asked.
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
