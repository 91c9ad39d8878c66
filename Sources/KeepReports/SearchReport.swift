import Foundation
import KeepCore

/// What `keep chats search TEXT --json` prints: each message that contains the text
/// (ignoring case and accents), newest chat first, with the line of it that matched.
///
/// ```json
/// { "matches" : [ { "chat" : "…", "index" : 0, "line" : "tell me about Paris",
///                   "role" : "user", "time" : "…", "title" : "paris" } ],
///   "text" : "paris" }
/// ```
package struct SearchReport: Codable, Sendable, Equatable {
    /// One message that contains the text.
    package struct Match: Codable, Sendable, Equatable {
        /// The chat's id.
        package let chat: String
        /// The chat's title.
        package let title: String
        /// The message's place in the chat, from 0.
        package let index: Int
        /// Who wrote the message: `user` or `assistant`.
        package let role: String
        /// The first line of the message that holds the text.
        package let line: String
        /// When the message was written, in UTC.
        package let time: String
    }

    /// What was searched for.
    package let text: String
    /// Each message that contains the text, newest chat first.
    package let matches: [Match]

    /// The report of a search for `text` that found `matches`, each shown by the line of it
    /// that matched.
    package init(text: String, matches: [ChatMatch]) {
        self.text = text
        self.matches = matches.map {
            Match(
                chat: $0.chatId, title: $0.title, index: $0.index, role: $0.message.role.rawValue,
                line: Self.line(of: $0.message.text, containing: text), time: UTCTime.text($0.message.time))
        }
    }

    /// The first line of `text` that contains `query` as the search compares them; the
    /// first line when the match spans lines.
    static func line(of text: String, containing query: String) -> String {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let found = lines.first { $0.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
        return String(found ?? lines.first ?? "")
    }
}
