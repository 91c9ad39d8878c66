/// Every chat in the store: the ones that read, newest first, and the ones that do not.
public struct ChatListing: Sendable, Equatable {
    /// The readable chats, most recently updated first.
    public let chats: [Chat]
    /// The chats that could not be read, by id.
    public let unreadable: [UnreadableChat]

    /// The listing of `chats`, as given (the repository orders them), and the chats that
    /// could not be read.
    public init(chats: [Chat], unreadable: [UnreadableChat]) {
        self.chats = chats
        self.unreadable = unreadable
    }
}
