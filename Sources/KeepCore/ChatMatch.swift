/// A message that contains the text a search asked for.
public struct ChatMatch: Sendable, Equatable {
    /// The chat the message is in.
    public let chatId: String
    /// That chat's title.
    public let title: String
    /// Where the message is in the chat.
    public let index: Int
    /// The message itself, whole.
    public let message: ChatMessage

    /// The match of `message`, at `index` in the chat `chatId` titled `title`.
    public init(chatId: String, title: String, index: Int, message: ChatMessage) {
        self.chatId = chatId
        self.title = title
        self.index = index
        self.message = message
    }
}
