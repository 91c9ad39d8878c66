import Foundation
import KeepCore

/// Where a server says how many tokens one of its models takes (its context window), and how
/// that answer reads, in each protocol: the one GET that learns a budget for a server whose
/// setting gives none (``ContextBudget``).
///
/// - OpenAI-compatible servers: `GET {url}/models`, the entry whose `id` is the model. The
///   OpenAI API itself lists no window; servers that add one spell it differently, and each
///   spelling is read: `context_length` (OpenRouter's models API, per model and again under
///   `top_provider`), `max_model_len` (vLLM's model card: the length the server was started
///   with), `context_window` (Groq's models list) and `max_context_length` (LM Studio's own
///   REST API). When an entry gives several, the smallest is the window: each is a limit
///   the server may enforce.
/// - Anthropic: `GET {url}/models/{model}`, one model (the list is paged): `max_input_tokens`,
///   which the Models API gives since Anthropic added capability fields to it; a server or an
///   older API version whose model object has only `id`, `display_name`, `created_at` and
///   `type` gives no window.
/// - Gemini: `GET {url}/models/{model}`: `inputTokenLimit` of Google's `Model` resource.
///
/// A window is a whole number from 1 to ``ServerProfile/contextTokensLimit``; anything else
/// (a missing model, a string, a fraction, zero) is no window.
package struct ContextWindowQuery: Sendable, Equatable {
    /// The protocol the server speaks.
    package let wire: ServerProtocol
    /// The server's base URL, as its setting spells it.
    package let server: String
    /// The model whose window is asked.
    package let model: String
    /// Where the GET goes.
    package let url: URL

    /// The query for `model` at the server `server` (its base URL) speaking `wire`; `nil`
    /// when the base URL is not an http(s) URL or the model is empty.
    package init?(wire: ServerProtocol, server: String, model: String) {
        guard !model.isEmpty else { return nil }
        var base = Substring(server)
        while base.hasSuffix("/") { base = base.dropLast() }
        let path =
            switch wire {
            case .openai: "/models"
            case .anthropic, .gemini: "/models/" + Self.segment(model)
            }
        guard let url = URL(string: base + path), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else { return nil }
        self.wire = wire
        self.server = server
        self.model = model
        self.url = url
    }

    /// The window the body of a successful answer gives for ``model``, or `nil` for none.
    package func window(in body: [UInt8]) -> Int? {
        let data = Data(body)
        let windows: [Int]
        switch wire {
        case .openai:
            guard let listing = try? JSONDecoder().decode(Listing.self, from: data),
                let entry = listing.data.first(where: { $0.id == model })
            else { return nil }
            windows =
                ["context_length", "max_model_len", "context_window", "max_context_length"].compactMap {
                    entry.counts[$0]
                } + [entry.topProvider["context_length"]].compactMap { $0 }
        case .anthropic, .gemini:
            let field = wire == .anthropic ? "max_input_tokens" : "inputTokenLimit"
            windows = [(try? JSONDecoder().decode(Described.self, from: data))?.counts[field]].compactMap { $0 }
        }
        return windows.filter { (1...ServerProfile.contextTokensLimit).contains($0) }.min()
    }

    /// A model's name as one path segment: `models/` dropped (Gemini's list names models so),
    /// everything but letters, digits and `-._` percent-escaped, so a name never reaches
    /// another path or a query.
    static func segment(_ model: String) -> String {
        var name = Substring(model)
        if name.hasPrefix("models/") { name = name.dropFirst("models/".count) }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._"))
        return String(name).addingPercentEncoding(withAllowedCharacters: allowed) ?? String(name)
    }

    // MARK: - What a server's answer says, read leniently

    /// An OpenAI-compatible model list: `{"data": [{"id": …, …}, …]}`.
    private struct Listing: Decodable {
        let data: [Described]
    }

    /// One model object: its `id`, and each field a window may be in that holds a whole
    /// number (a string, a fraction or a `true` there is no window, and no failure).
    private struct Described: Decodable {
        static let fields = [
            "context_length", "max_model_len", "context_window", "max_context_length", "max_input_tokens",
            "inputTokenLimit",
        ]
        let id: String?
        let counts: [String: Int]
        /// OpenRouter's `top_provider` object, its fields read the same way.
        let topProvider: [String: Int]

        init(from decoder: Decoder) {
            let fields = try? decoder.container(keyedBy: WireJSON.Field.self)
            id = try? fields?.decode(String.self, forKey: WireJSON.Field("id"))
            counts = Self.counts(in: fields)
            topProvider = Self.counts(
                in: try? fields?.nestedContainer(keyedBy: WireJSON.Field.self, forKey: WireJSON.Field("top_provider")))
        }

        private static func counts(in fields: KeyedDecodingContainer<WireJSON.Field>?) -> [String: Int] {
            var counts: [String: Int] = [:]
            for name in Self.fields {
                if let count = try? fields?.decode(Int.self, forKey: WireJSON.Field(name)) { counts[name] = count }
            }
            return counts
        }
    }
}
