import KeepCore

/// The two token counts a protocol's usage object carries (the prompt's and the answer's),
/// under that protocol's own field names (``TokenCountNames``), read leniently: a count that
/// is missing or of another type is no count, never a broken answer. Written once for the
/// three wires.
struct TokenCounts<Names: TokenCountNames>: Decodable, Sendable {
    /// The prompt's tokens, when the server counted them.
    let prompt: Int?
    /// The answer's tokens, when the server counted them.
    let completion: Int?

    /// Never fails: whatever the object holds, what is not a count is `nil`.
    init(from decoder: Decoder) {
        let fields = try? decoder.container(keyedBy: WireJSON.Field.self)
        prompt = try? fields?.decode(Int.self, forKey: WireJSON.Field(Names.prompt))
        completion = try? fields?.decode(Int.self, forKey: WireJSON.Field(Names.completion))
    }

}

/// The field names of one protocol's two token counts.
protocol TokenCountNames: Sendable {
    /// The prompt's count: `prompt_tokens`, `input_tokens`, `promptTokenCount`.
    static var prompt: String { get }
    /// The answer's count: `completion_tokens`, `output_tokens`, `candidatesTokenCount`.
    static var completion: String { get }
}

extension TokenCounts {
    /// As keep keeps it; `nil` unless both counts are there and not negative.
    var tokens: TokenUsage? {
        guard let prompt, let completion, prompt >= 0, completion >= 0 else { return nil }
        return TokenUsage(promptTokens: prompt, completionTokens: completion)
    }
}
