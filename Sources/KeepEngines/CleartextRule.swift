import Foundation

/// Whether a key may go to a URL: never over plain http to a host that is not this
/// machine (``ThisMachine``: every address the name resolves to is loopback), unless the
/// user named that host in the `keyOverHttpHosts` setting (a server on a network they
/// trust). The one place the transport, the engines, the model list and `keep doctor`
/// decide by.
///
/// Checked by the transport for every request before anything connects (a redirect's
/// request too), so a refused key never leaves the process. A request without a key is
/// not this rule's business: a local-network server that needs none is reached over http
/// as before. When the answer rests on a name resolving to loopback, the request is sent
/// to the address it resolved to (``Verdict/thisMachine(address:)``), not to the name.
package enum CleartextRule {
    /// The outcome for one URL and key.
    package enum Verdict: Equatable, Sendable {
        /// https, or no key: nothing to say; the request goes to the URL as it is.
        case fine
        /// Plain http with a key to a host that is this machine: the request goes to
        /// `address`, the loopback address the host resolved to.
        case thisMachine(address: String)
        /// Plain http to a host the user allowed by name.
        case allowedByName(host: String)
        /// Plain http to another host, with a key: refused. `detail` says where the name
        /// goes when it is not an address (`it resolves to 192.0.2.1`), else is empty.
        case refused(host: String, detail: String)
    }

    /// The verdict for sending a key (`sendsKey`) to `url`, given the hosts the user
    /// allowed; resolves the host with `resolve` (the system's resolver,
    /// ``ThisMachine/resolve(_:)``, unless a test gives its own) only for plain http with a key.
    package static func verdict(
        for url: URL, sendsKey: Bool, allowedHosts: [String],
        resolve: @Sendable (String) async -> ThisMachine.Resolution = ThisMachine.resolve
    ) async -> Verdict {
        guard sendsKey, let origin = ServerOrigin(url), !origin.isSecure else { return .fine }
        if allowedHosts.contains(origin.host) { return .allowedByName(host: origin.host) }
        switch await resolve(origin.host) {
        case .thisMachine(let address):
            return .thisMachine(address: address)
        case .elsewhere(let addresses):
            let isAddress = addresses == [origin.host]
            return .refused(
                host: origin.host, detail: isAddress ? "" : "it resolves to " + addresses.joined(separator: ", "))
        case .unresolved(let reason):
            return .refused(host: origin.host, detail: "it does not resolve: \(reason)")
        }
    }

    /// The hosts the `keyOverHttpHosts` setting names: comma-separated, trimmed, lowercased.
    package static func hosts(inSetting text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// `which is not this machine`, with where the name goes when there is more to say.
    package static func notThisMachine(_ detail: String) -> String {
        "which is not this machine" + (detail.isEmpty ? "" : " (\(detail))")
    }

    /// The line for a refused key: what was not done, and why. What to do instead is the
    /// caller's to say (``EngineError/Remedy/keyOverPlainHTTP(_:host:)``).
    package static func refusal(host: String, detail: String, keyRef: String) -> String {
        "refused to send the API key in \(keyRef) over plain http to \(host), \(notThisMachine(detail)): "
            + "anyone on the way could read it"
    }
}
