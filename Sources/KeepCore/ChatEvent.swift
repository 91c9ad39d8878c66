import Foundation

/// What one line of a chat after its head records (chat format 3): a message kept from a
/// whole write, a turn, a title, a system prompt. How each changes the chat is
/// ``apply(to:)``: the one rule for a file read and for a session's chat in memory.
enum ChatEvent: Sendable, Equatable {
    /// A message of the chat as it was when written whole; it changes nothing else.
    case message(ChatMessage)
    /// A completed turn: its two messages; the chat's time, engine and, when the turn set
    /// them, system prompt and role; and, when the chat has no title yet, a title from the question.
    case turn(ChatTurn)
    /// The chat's title set (`""` for none) at `time`; the chat's time is left as it was.
    case title(String, time: Date)
    /// The chat's own system prompt set (`nil`: the setting applies again) at `time`; the
    /// chat's time is left as it was.
    case system(String?, time: Date)

    /// `chat` with this event.
    func apply(to chat: inout Chat) {
        switch self {
        case .message(let message):
            chat.messages.append(message)
        case .turn(let turn):
            chat.messages.append(contentsOf: turn.messages)
            chat.updated = turn.time
            chat.engine = turn.engine
            if let system = turn.system { chat.system = system }
            if let role = turn.role { chat.role = role }
            if chat.title.isEmpty { chat.title = Self.title(from: turn.question) }
        case .title(let title, _):
            chat.title = title
        case .system(let system, _):
            chat.system = system
        }
    }

    /// A one-line title from a question: its first line, cut at 60 characters.
    static func title(from question: String) -> String {
        let line = question.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > 60 else { return trimmed.isEmpty ? "untitled" : trimmed }
        return String(trimmed.prefix(59)) + "…"
    }
}
