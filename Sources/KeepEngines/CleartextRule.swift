import Foundation

/// Whether a key may go to a URL: never over plain http to a host that is not this
/// machine, unless the user named that host in the `keyOverHttpHosts` setting (a server
/// on a network they trust). The one place both HTTP paths and `keep doctor` decide by.
///
/// Checked before anything connects, so a refused key never leaves the process. A request
/// without a key is not this rule's business: a local-network server that needs none is
/// reached over http as before.
package enum CleartextRule {
    /// The outcome for one URL and key.
    package enum Verdict: Equatable, Sendable {
        /// https, a loopback host, or no key: nothing to say.
        case fine
        /// Plain http to a host the user allowed by name.
        case allowedByName(host: String)
        /// Plain http to another host, with a key: refused.
        case refused(host: String)
    }

    /// The verdict for sending a key (`sendsKey`) to `url`, given the hosts the user allowed.
    package static func verdict(for url: URL, sendsKey: Bool, allowedHosts: [String]) -> Verdict {
        guard sendsKey, let origin = ServerOrigin(url), !origin.isSecure, !origin.isLoopback else { return .fine }
        return allowedHosts.contains(origin.host) ? .allowedByName(host: origin.host) : .refused(host: origin.host)
    }

    /// The hosts the `keyOverHttpHosts` setting names: comma-separated, trimmed, lowercased.
    package static func hosts(inSetting text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// The line for a refused key: what was not done, and why. What to do instead is the
    /// caller's to say (``EngineError/Remedy/keyOverPlainHTTP(_:host:)``).
    package static func refusal(host: String, keyRef: String) -> String {
        "refused to send the API key in \(keyRef) over plain http to \(host), which is not this machine: "
            + "anyone on the way could read it"
    }
}
