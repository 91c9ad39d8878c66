/// Every chat in the store as a listing shows it: summaries of the ones that read, newest
/// first, and the ones that do not, by id (never hidden).
public struct ChatSummaryListing: Sendable, Equatable {
    /// The readable chats, most recently updated first.
    public let chats: [ChatSummary]
    /// The chats that could not be read, by id.
    public let unreadable: [UnreadableChat]

    /// The listing of `chats` and `unreadable`, each put in its order.
    public init(chats: [ChatSummary], unreadable: [UnreadableChat]) {
        self.chats = chats.sorted { $0.precedes($1) }
        self.unreadable = unreadable.sorted { $0.id < $1.id }
    }

    /// The summaries of a full scan.
    public init(_ listing: ChatListing) {
        self.init(chats: listing.chats.map(ChatSummary.init), unreadable: listing.unreadable)
    }
}
