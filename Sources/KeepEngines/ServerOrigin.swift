import Foundation

/// Where a request goes, as far as a key is concerned: the scheme, the host and the port
/// of a URL (the port spelled out, 80 or 443 when the URL leaves it implied).
///
/// Two URLs with one origin reach the same server; a key given for `baseUrl` goes to its
/// origin and nowhere else. Whether the host is this machine is not a matter of its
/// spelling: ``ThisMachine`` decides it by where the name goes.
package struct ServerOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    package let scheme: String
    /// The host, lowercased, an IPv6 address without its brackets.
    package let host: String
    /// The port, spelled out: 80 for http and 443 for https when the URL leaves it implied.
    package let port: Int

    /// The origin of `url`; `nil` for a URL that is not http or https or names no host.
    package init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether the traffic is encrypted (https).
    package var isSecure: Bool { scheme == "https" }

    /// `https://example.test:443`.
    package var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
