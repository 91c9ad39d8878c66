/// A chat ``ChatRepository/importChat(_:)`` stored, and whether it kept the id its file gave.
public struct ImportedChat: Sendable, Equatable {
    /// Why an imported chat was given a new id instead of its file's.
    public enum NewId: Sendable, Equatable {
        /// A stored chat or draft already has the file's id (or the store cannot read what
        /// holds it): nothing is ever written over.
        case taken
        /// The file's id is not of the form keep makes (``ChatRepository/isOwnIdForm(_:)``):
        /// an id from outside is never stored, so it is never printed or typed back.
        case notKeepsForm
    }

    /// The chat as stored.
    public let chat: Chat
    /// The id the file gave, as it gave it: text from outside, to be neutralised before it
    /// is shown.
    public let idInFile: String
    /// Why the chat has a new id; `nil` when it kept the file's.
    public let newId: NewId?

    /// An imported `chat`, whose file said `idInFile`.
    public init(chat: Chat, idInFile: String, newId: NewId?) {
        self.chat = chat
        self.idInFile = idInFile
        self.newId = newId
    }
}
