import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a request goes, as far as a key is concerned: the scheme, the host and the port
/// of a URL (the port spelled out, 80 or 443 when the URL leaves it implied).
///
/// Two URLs with one origin reach the same server; a key given for `baseUrl` goes to its
/// origin and nowhere else. ``isLoopback`` says whether the host is this machine: the
/// loopback addresses 127.0.0.0/8 and ::1, and the name `localhost`.
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

    /// Whether the host is this machine: `localhost`, an address in 127.0.0.0/8, or ::1
    /// (also as an IPv4-mapped loopback address). Any other name is not, even one that
    /// resolves to a loopback address today: a resolver can be changed.
    package var isLoopback: Bool { Self.isLoopback(host: host) }

    /// Whether `host` (lowercased, without brackets) is a loopback host.
    static func isLoopback(host: String) -> Bool {
        if host == "localhost" || host == "localhost." { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        let isOne = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let isMappedLoopback =
            bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
        return isOne || isMappedLoopback
    }

    /// `https://example.test:443`.
    package var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
