/// A chat as its store holds it: the chat, and the format of its file, which decides how
/// the next change to it is written.
///
/// A chat in the current format (3) takes a turn, a new title or a new system prompt as
/// one append to its file, whatever its length; a chat in an older format, or one not
/// stored yet, is written whole (in the current format) by its next change, once.
public struct StoredChat: Sendable, Equatable {
    /// The chat, as read (or as it will be first written).
    public let chat: Chat
    /// The format its file is in; `nil` while it is not stored.
    public let format: Int?

    /// `chat` as read from a file in `format`.
    init(_ chat: Chat, format: Int?) {
        self.chat = chat
        self.format = format
    }

    /// `chat`, not stored yet: its first change writes it whole.
    public init(new chat: Chat) {
        self.init(chat, format: nil)
    }

    /// Whether the next change is one append to the file (the file is in the current format).
    public var isAppendable: Bool { format == ChatFormat.version }
}
