import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as an engine hands it to the transport (``DataTaskEvents``): everything but
/// the header that carries the key, which is built from the key's bytes only at the moment
/// the request is sent (``sending(to:userAgent:)``) and lives no longer than the request.
///
/// What goes out is exactly what docs/keep-guide.md lists: `Host`, `User-Agent:
/// keep/<version>`, `Accept`, `Content-Type` and `Content-Length` when there is a body, the
/// key's header when there is a key, and what the HTTP library adds on its own
/// (`Accept-Encoding`, `Connection`), nothing else.
package struct OutgoingRequest: Sendable {
    /// Where the request goes, as the user's settings name it.
    package var url: URL
    /// `GET` or `POST`.
    package var method: String
    /// The request's own headers (`Accept`, `Content-Type`): neither the key's nor
    /// `User-Agent` nor `Host`, which the transport sets.
    package var headers: [String: String]
    /// The body, when there is one.
    package var body: Data?
    /// The key, or `nil` for none (then no key header at all).
    package var key: APIKey?
    /// Which header carries the key, and in what form.
    package var keyHeader: KeyHeader

    /// The request `method url` with `headers` and `body`, carrying `key` in `keyHeader`.
    package init(
        _ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil, key: APIKey? = nil,
        keyHeader: KeyHeader = .bearer
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.key = key
        self.keyHeader = keyHeader
    }

    /// Which header carries a key: its name, and what comes before the key in its value.
    package struct KeyHeader: Sendable, Equatable {
        /// The header's name, such as `Authorization`.
        package let name: String
        /// What comes before the key, such as `Bearer `.
        package let prefix: String

        /// A key header `name: <prefix><key>`.
        package init(name: String, prefix: String = "") {
            self.name = name
            self.prefix = prefix
        }

        /// `Authorization: Bearer <key>`, as OpenAI-compatible servers take it.
        package static let bearer = KeyHeader(name: "Authorization", prefix: "Bearer ")
    }

    /// The URLRequest that is sent: to `address` instead of the URL's host when the
    /// cleartext rule pinned it there (the `Host` header then names the host as the URL
    /// spells it, so the server sees the same request), with `User-Agent: userAgent`, and
    /// the key's header built now from its bytes.
    func sending(to address: String? = nil, userAgent: String) -> URLRequest {
        var target = url
        var hostHeader: String?
        if let address, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = parts.host {
            hostHeader = (host.contains(":") ? "[\(host)]" : host) + (parts.port.map { ":\($0)" } ?? "")
            parts.host = address.contains(":") ? "[\(address)]" : address
            if let pinned = parts.url { target = pinned }
        }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        if let hostHeader { request.setValue(hostHeader, forHTTPHeaderField: "Host") }
        if let key { request.setValue(key.headerValue(prefix: keyHeader.prefix), forHTTPHeaderField: keyHeader.name) }
        request.httpBody = body
        return request
    }
}
