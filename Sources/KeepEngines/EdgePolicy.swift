/// What every request keep sends obeys and carries, whichever engine sends it: the hosts
/// the user allowed to get a key over plain http (``CleartextRule``), and the
/// `User-Agent` keep names itself with. Set once, by the composition root.
package struct EdgePolicy: Sendable, Equatable {
    /// The hosts the `keyOverHttpHosts` setting names.
    package var keyOverHttpHosts: [String]
    /// `keep/<version>`.
    package var userAgent: String

    /// A policy allowing `keyOverHttpHosts` a key over plain http, sending `userAgent`.
    package init(keyOverHttpHosts: [String] = [], userAgent: String) {
        self.keyOverHttpHosts = keyOverHttpHosts
        self.userAgent = userAgent
    }

    /// `keep/<version>`, the `User-Agent` of every request.
    package static func userAgent(version: String) -> String { "keep/\(version)" }
}
