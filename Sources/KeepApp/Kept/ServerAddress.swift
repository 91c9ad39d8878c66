import Foundation

/// The address of a chat server, the subject of the engines module's kept rows: its base
/// URL (the `baseUrl` setting), in one spelling.
///
/// Two spellings of one server are one address: the scheme and host are lowercased and
/// trailing slashes dropped, so `HTTP://Example.test:8080/v1/` is
/// `http://example.test:8080/v1`. Rows keep only its keyed hash, so the same spelling
/// must come out every time, or `keep engines forget URL` would miss them.
///
/// Refused with a typed ``KeptError/Code/refused`` error, saying what is wrong: anything
/// but an absolute `http` or `https` URL with a host; a URL with a user or password in it
/// (a key belongs in the keychain, never in an address that is hashed, listed and
/// printed); a query or a fragment.
public struct ServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in its one spelling.
    public let text: String
    /// Where an OpenAI-compatible server lists its models: `{base}/models`.
    let modelsURL: URL

    public init(_ text: String) throws(KeptError) {
        let operation = "read the server address"
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard var parts = URLComponents(string: trimmed), let scheme = parts.scheme?.lowercased() else {
            throw .refused(operation, "\(Self.quoted(trimmed)) is not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw .refused(operation, "\(Self.quoted(trimmed)) is not an http or https URL")
        }
        guard let host = parts.host, !host.isEmpty else {
            throw .refused(operation, "\(Self.quoted(trimmed)) names no host")
        }
        guard parts.user == nil, parts.password == nil else {
            // Not quoted back: the text holds a credential.
            throw .refused(
                operation, "the address holds a user or password; put the key in the keychain (keep key set) instead")
        }
        guard parts.query == nil, parts.fragment == nil else {
            throw .refused(
                operation, "\(Self.quoted(trimmed)) has a query or fragment; a server's base URL has neither")
        }
        parts.scheme = scheme
        parts.host = host.lowercased()
        while parts.path.hasSuffix("/") { parts.path.removeLast() }
        guard let spelled = parts.string, let models = URL(string: spelled + "/models") else {
            throw .refused(operation, "\(Self.quoted(trimmed)) is not a URL")
        }
        self.text = spelled
        self.modelsURL = models
    }

    public var description: String { text }

    private static func quoted(_ text: String) -> String {
        String(reflecting: text.count > 200 ? String(text.prefix(200)) + "…" : text)
    }
}
