import Foundation

/// One message of a chat: who said it, what, and when.
public struct ChatMessage: Sendable, Equatable {
    /// Who wrote a message.
    public enum Role: String, Sendable, CaseIterable {
        /// The person asking.
        case user
        /// The engine answering.
        case assistant
    }

    public let role: Role
    public let text: String
    public let time: Date

    public init(role: Role, text: String, time: Date) {
        self.role = role
        self.text = text
        self.time = time
    }
}
