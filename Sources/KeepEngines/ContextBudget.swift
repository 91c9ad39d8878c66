import Foundation
import KeepCore

/// What of a conversation fits a server's context budget: the oldest turns left out of the
/// request (never out of the chat) until the estimate fits; the system prompt and the
/// question asked now are always sent.
///
/// The estimate is deliberately rough and on the large side: a token per four bytes of
/// text, four more per message, ``imageTokens`` per image. A server that counts differently
/// still gets a request of about the right size.
///
/// What it costs is what is sent, not the chat: the turns are walked from the newest back,
/// and the walk stops at the first turn that does not fit; a message's bytes are counted,
/// never read (a native string knows its UTF-8 length), and no message is copied or encoded
/// here. In a chat of hundreds of MB the left-out turns are only counted.
///
/// Without a budget the whole conversation is sent, unless its estimate passes the engine's
/// ``ChatEngine/unbudgetedLimit`` (``unbudgetedLimit``: 2,000,000 tokens for a server, more
/// than the largest window any model offers): then nothing is sent, and the one line says
/// to give the server a budget (`--context`).
package enum ContextBudget {
    /// What an image is counted as.
    package static let imageTokens = 1_000

    /// The most a request to a server without a budget may carry, by the estimate:
    /// 2,000,000 tokens (about 8 MB of text), past the largest context window a model offers
    /// (Gemini's two million), so a conversation past it cannot be answered by any server and
    /// is not sent; a budget of its own (`--context`, up to
    /// ``ServerProfile/contextTokensLimit``) sends its newest turns instead.
    package static let unbudgetedLimit = 2_000_000

    /// What any model's context window takes, by the estimate: 1,024 tokens. A conversation
    /// no larger needs no budget, so none is learned for it (no model list is asked).
    package static let fitsAnyModel = 1_024

    /// A server's budget for one request, and where it came from.
    package struct Limit: Sendable, Equatable {
        /// Where a budget comes from.
        package enum Source: String, Sendable, Equatable, Codable {
            /// The server's own `contextTokens` (`keep servers add … --context TOKENS`).
            case setting
            /// The server's model list (``ContextWindowQuery``), read at ``Limit/readAt``.
            case modelList = "model list"
            /// Neither: no budget.
            case none
        }

        /// The tokens one request may carry; `nil` for no budget.
        package let tokens: Int?
        /// Where ``tokens`` came from.
        package let source: Source
        /// When the model list said so, for ``Source/modelList``.
        package let readAt: Date?

        /// The budget `tokens` from `source` (read at `readAt`, for a model list).
        package init(tokens: Int?, source: Source, readAt: Date? = nil) {
            self.tokens = tokens
            self.source = tokens == nil ? .none : source
            self.readAt = tokens == nil ? nil : readAt
        }

        /// No budget.
        package static let none = Limit(tokens: nil, source: .none)
    }

    /// The messages to send, and how many turns were left out.
    package struct Fitted: Sendable, Equatable {
        /// The system messages, the turns that fit, and the question, in that order.
        package let messages: [ChatMessage]
        /// How many whole turns (a question and its answer) were left out, oldest first.
        package let leftOut: Int
    }

    /// The estimated tokens of `message`.
    package static func estimate(_ message: ChatMessage) -> Int {
        (message.text.utf8.count + 3) / 4 + 4 + message.attachments.count * imageTokens
    }

    /// The estimated tokens of `system`, `history` and `question`, with `reserve` kept for
    /// the answer: each message's bytes counted, none read.
    package static func estimate(
        system: [ChatMessage], history: [ChatMessage], question: ChatMessage, reserve: Int = 0
    ) -> Int {
        (system + [question]).reduce(history.reduce(reserve) { $0 + estimate($1) }) { $0 + estimate($1) }
    }

    /// `system`, then as much of `history` (oldest first) as fits `budget` tokens with
    /// `reserve` kept for the answer, then `question`. Whole turns are left out, oldest
    /// first; the system messages and the question are always sent, even past the budget.
    ///
    /// With no budget everything is sent, unless the estimate passes `unbudgetedLimit`:
    /// then an ``EngineError/Code/tooLarge`` error says so in one line naming `--context`,
    /// and nothing is sent.
    package static func fit(
        system: [ChatMessage], history: [ChatMessage], question: ChatMessage, budget: Int?, reserve: Int = 0,
        unbudgetedLimit: Int? = nil
    ) throws(EngineError) -> Fitted {
        let fixed = estimate(system: system, history: [], question: question, reserve: reserve)
        guard let budget else {
            if let unbudgetedLimit {
                let total = history.reduce(fixed) { $0 + estimate($1) }
                if total > unbudgetedLimit { throw refusal(estimated: total, limit: unbudgetedLimit) }
            }
            return Fitted(messages: system + history + [question], leftOut: 0)
        }
        // From the newest turn back, while whole turns fit.
        var start = history.endIndex
        var total = fixed
        while start > history.startIndex {
            let turn = turnStart(before: start, in: history)
            let cost = history[turn..<start].reduce(0) { $0 + estimate($1) }
            guard total + cost <= budget else { break }
            total += cost
            start = turn
        }
        var leftOut = 0
        var end = start
        while end > history.startIndex {
            end = turnStart(before: end, in: history)
            leftOut += 1
        }
        return Fitted(messages: system + history[start...] + [question], leftOut: leftOut)
    }

    /// Where the turn that ends at `end` begins: a question and the answer after it are one
    /// turn; any other message is a turn of its own.
    private static func turnStart(before end: Int, in history: [ChatMessage]) -> Int {
        let last = end - 1
        if history[last].role == .assistant, last > history.startIndex, history[last - 1].role == .user {
            return last - 1
        }
        return last
    }

    /// The line for a conversation too large to send without a budget.
    private static func refusal(estimated: Int, limit: Int) -> EngineError {
        EngineError(
            .tooLarge,
            "this chat is about \(grouped(estimated)) tokens, more than any server takes in one request "
                + "(\(grouped(limit))); not sent. Give the server a context budget "
                + "(keep servers add NAME URL --context TOKENS) to send only its newest turns")
    }

    /// `2,000,000`.
    private static func grouped(_ number: Int) -> String {
        var digits = String(number)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(Substring(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        return ([Substring(digits)] + groups).joined(separator: ",")
    }
}
