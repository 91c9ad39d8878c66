import KeepPorts

/// The wire format a server speaks: OpenAI chat completions, Anthropic Messages or Google
/// Gemini, each with the keychain slot its key is read from unless a server names another.
public enum ServerProtocol: String, CaseIterable, Sendable, Codable {
    /// `POST {url}/chat/completions`, the key as `Authorization: Bearer`: OpenAI and every
    /// server that copies it (llama.cpp, Ollama, vLLM, LiteLLM, OpenRouter).
    case openai
    /// `POST {url}/messages`, the key in `x-api-key`, with `anthropic-version`.
    case anthropic
    /// `POST {url}/models/{model}:streamGenerateContent?alt=sse`, the key in `x-goog-api-key`.
    case gemini

    /// The keychain slot a server of this protocol reads its key from by default.
    public var defaultSlot: SecretSlot {
        switch self {
        case .openai: .openai
        case .anthropic: .anthropic
        case .gemini: .google
        }
    }

    /// `openai, anthropic or gemini`, for a refusal.
    public static var described: String { "openai, anthropic or gemini" }
}
