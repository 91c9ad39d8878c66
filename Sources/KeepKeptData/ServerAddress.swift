import Foundation
import KeepCore

/// The address of a chat server, the subject of the engines module's kept rows: its base
/// URL (the `baseUrl` setting), in one spelling.
///
/// Two spellings of one server are one address: the scheme and host are lowercased and
/// trailing slashes dropped, so `HTTP://Example.test:8080/v1/` is
/// `http://example.test:8080/v1`. Rows keep only its keyed hash, so the same spelling
/// must come out every time, or `keep engines forget URL` would miss them.
///
/// Refused with a typed ``KeptError/Code/refused`` error, saying which part of
/// `ServerURLRule` it breaks: anything but an absolute `http` or `https` URL with a host;
/// a URL with a user or password in it (a key belongs in the keychain, never in an address
/// that is hashed, listed and printed; such a URL is not quoted back); a query or a
/// fragment; a port outside 1–65535.
package struct ServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in its one spelling.
    package let text: String
    /// Where an OpenAI-compatible server lists its models: `{base}/models`.
    let modelsURL: URL

    /// The address `text` in its one spelling (spaces around it dropped), or a typed
    /// ``KeptError/Code/refused`` error.
    package init(_ text: String) throws(KeptError) {
        let operation = "read the server address"
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = ServerURLRule.problem(in: trimmed) {
            // An address with a user or password is not quoted back: the text holds a credential.
            let holdsCredential = URLComponents(string: trimmed).map { $0.user != nil || $0.password != nil } ?? false
            throw .refused(
                operation, holdsCredential ? "the address \(problem)" : "\(Self.quoted(trimmed)): \(problem)")
        }
        guard var parts = URLComponents(string: trimmed), let scheme = parts.scheme?.lowercased(),
            let host = parts.host
        else {
            throw .refused(operation, "\(Self.quoted(trimmed)) is not a URL")
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

    package var description: String { text }

    private static func quoted(_ text: String) -> String {
        String(reflecting: text.count > 200 ? String(text.prefix(200)) + "…" : text)
    }
}
