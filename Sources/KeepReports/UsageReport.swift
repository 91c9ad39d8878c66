import Foundation
import KeepCore

/// What `keep usage` sums up: the tokens servers counted for the answers in every readable
/// chat, per model, over the last `days` days or all of them.
///
/// ```json
/// { "days" : 7, "since" : "2025-06-07T15:30:12.345Z",
///   "models" : [ { "answers" : 3, "completion" : 20, "model" : "qwen3", "prompt" : 40, "total" : 60,
///                  "uncounted" : 1 } ],
///   "total" : { "answers" : 3, "completion" : 20, "prompt" : 40, "total" : 60, "uncounted" : 1 } }
/// ```
///
/// `answers` counts the answers of a model; `uncounted` those of them whose server sent no
/// usage (their tokens are not in the sums). Answers with no model (the echo engine, chats
/// from before keep recorded the model) are left out. `days` and `since` are there only
/// with `--since`. Models are sorted by total tokens, most first.
package struct UsageReport: Codable, Sendable, Equatable {
    /// One model's sums (or all models', as ``total``).
    package struct Row: Codable, Sendable, Equatable {
        /// The model; `nil` in the row of all models.
        package var model: String?
        /// How many answers the model gave.
        package var answers = 0
        /// How many of them came with no usage from the server; their tokens are not in the
        /// sums.
        package var uncounted = 0
        /// Tokens of the conversations sent, summed.
        package var prompt = 0
        /// Tokens of the answers, summed.
        package var completion = 0
        /// Prompt and completion together.
        package var total: Int { prompt + completion }

        enum CodingKeys: String, CodingKey {
            case model, answers, uncounted, prompt, completion, total
        }

        init(model: String?) {
            self.model = model
        }

        package init(from decoder: Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            model = try fields.decodeIfPresent(String.self, forKey: .model)
            answers = try fields.decode(Int.self, forKey: .answers)
            uncounted = try fields.decode(Int.self, forKey: .uncounted)
            prompt = try fields.decode(Int.self, forKey: .prompt)
            completion = try fields.decode(Int.self, forKey: .completion)
        }

        package func encode(to encoder: Encoder) throws {
            var fields = encoder.container(keyedBy: CodingKeys.self)
            try fields.encodeIfPresent(model, forKey: .model)
            try fields.encode(answers, forKey: .answers)
            try fields.encode(uncounted, forKey: .uncounted)
            try fields.encode(prompt, forKey: .prompt)
            try fields.encode(completion, forKey: .completion)
            try fields.encode(total, forKey: .total)
        }

        /// Adds one answer.
        mutating func add(_ usage: TokenUsage?) {
            answers += 1
            guard let usage else {
                uncounted += 1
                return
            }
            prompt += usage.promptTokens
            completion += usage.completionTokens
        }
    }

    /// The days summed, when limited.
    package let days: Int?
    /// From when answers are summed, when limited.
    package let since: String?
    /// One row per model, most tokens first.
    package let models: [Row]
    /// The sums over every model.
    package let total: Row

    /// The sums over `chats`' answers given at or after `now` minus `days` days (all, without).
    package init(chats: [Chat], days: Int? = nil, now: Date = Date()) {
        let start = days.map { now.addingTimeInterval(-Double($0) * 86_400) }
        var rows: [String: Row] = [:]
        var total = Row(model: nil)
        for chat in chats {
            for message in chat.messages where message.role == .assistant {
                guard let model = message.model, start.map({ message.time >= $0 }) ?? true else { continue }
                rows[model, default: Row(model: model)].add(message.usage)
                total.add(message.usage)
            }
        }
        self.days = days
        since = start.map(UTCTime.text)
        models = rows.values.sorted { ($1.total, $0.model ?? "") < ($0.total, $1.model ?? "") }
        self.total = total
    }
}
