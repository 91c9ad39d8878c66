import Foundation

/// What makes text a usable server address (the `baseUrl` setting): the one place that
/// decides, for the setting's validator, the engines module's server addresses and the
/// remote engine.
///
/// Accepted: an absolute `http` or `https` URL with a host, with no user name or password
/// (a key belongs in the keychain, never in an address that is listed and printed), no
/// query or fragment (a base URL has paths appended to it), no spaces, and, when it names
/// a port, one from 1 to 65535. On Linux, not an IPv6 address in brackets
/// (`http://[::1]:8080/v1`): the HTTP library there (FoundationNetworking) cannot connect
/// to one, so such an address is refused when it is set, with that reason, rather than
/// failing at every request.
public enum ServerURLRule {
    /// The rule in words, as the setting's refusal shows it.
    public static let rule =
        "an http:// or https:// URL with a host (and a port from 1 to 65535 if any), "
        + "without a user, password, query or fragment" + linuxRule

    #if os(Linux)
        /// What Linux adds to the rule: no IPv6 address in brackets.
        private static let linuxRule =
            ", and not an IPv6 address in brackets, which the HTTP library keep uses on Linux cannot connect to "
            + "(use 127.0.0.1 for this machine)"
    #else
        private static let linuxRule = ""
    #endif

    /// Which part of the rule `text` breaks, in words that never repeat a password; `nil`
    /// when it keeps every part.
    public static func problem(in text: String) -> String? {
        guard !text.contains(where: \.isWhitespace), let parts = URLComponents(string: text),
            let scheme = parts.scheme?.lowercased()
        else { return "it is not a URL" }
        guard scheme == "http" || scheme == "https" else { return "it is not an http or https URL" }
        guard parts.user == nil, parts.password == nil else {
            return "it holds a user or password; put the key in the keychain (keep key set) instead"
        }
        guard let host = parts.host, !host.isEmpty else { return "it names no host" }
        #if os(Linux)
            if host.contains(":") || text.contains("://[") {
                return "it is an IPv6 address in brackets, which the HTTP library keep uses on Linux cannot connect "
                    + "to; use 127.0.0.1 for this machine, or a name that resolves to the address"
            }
        #endif
        guard parts.query == nil, parts.fragment == nil else {
            return "it has a query or fragment; a server's base URL has neither"
        }
        if let port = parts.port, !(1...65535).contains(port) { return "its port is not from 1 to 65535" }
        // URLComponents reads an out-of-range port as nil on some platforms: look at the text too.
        if let portText = Self.portText(text), Int(portText).map({ (1...65535).contains($0) }) != true {
            return "its port is not from 1 to 65535"
        }
        return nil
    }

    /// The digits after the host's colon, when the authority names a port.
    private static func portText(_ text: String) -> String? {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let afterScheme = text[schemeEnd.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        // An IPv6 literal: the port follows the closing bracket.
        let afterHost = hostPort.hasPrefix("[") ? hostPort.drop { $0 != "]" }.dropFirst() : hostPort
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        return String(afterHost[afterHost.index(after: colon)...])
    }
}
