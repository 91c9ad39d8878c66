import KeepPorts

/// Why an engine gave no complete answer, in one line a terminal can show.
///
/// `code` is what a caller switches on; ``description`` is the line for the user: what
/// happened. What the user can do about it, when there is one thing to do, is ``remedy``: a
/// value, which the command line says in its own words (an engine builds no command line).
/// It never contains an API key (a server message that quotes the key has it blanked out)
/// nor the question.
package struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Code: String, Sendable, Equatable, CaseIterable {
        /// The caller cancelled the answer (Ctrl-C).
        case cancelled
        /// The server wants a key, or refused the one sent (HTTP 401 or 403).
        case unauthorized
        /// The server answered with another HTTP error.
        case http
        /// The server could not be reached: refused, unknown host, connection lost.
        case connection
        /// The server stopped answering for longer than the engine waits.
        case timeout
        /// The server's answer was not an answer: not server-sent events or JSON of the
        /// chat completions shape, or a stream that ended before it was complete.
        case badResponse
        /// The API key could not be read from the keychain.
        case key
        /// The engine is not one this build has, or is not set up well enough to ask.
        case configuration
        /// The server redirected the request somewhere keep does not follow (another
        /// origin, https to http, or a redirect that would drop the question).
        case redirected
        /// The key would have gone over plain http to a host that is not this machine;
        /// refused before connecting.
        case cleartext
        /// The answer passed the size limit (the `answerLimitMiB` setting).
        case tooLarge
        /// The server's certificate was refused, verified against the authority the server
        /// is to be verified against (its `--ca`); nothing was sent.
        case untrusted
    }

    /// What the user can do about a failure, when there is one thing to do: the command line
    /// (or a settings screen) says it in its own words.
    package enum Remedy: Sendable, Equatable {
        /// The server wants a key, and none was sent: store one in this ref.
        case storeKey(SecretRef)
        /// The key in this ref was refused or cannot be sent: store the right one.
        case replaceKey(SecretRef)
        /// A key was refused before it went over plain http to `host`: use an https
        /// `baseUrl`; or remove the key in `ref`, if that server needs none; or allow `host`
        /// by name in the `keyOverHttpHosts` setting, for a server on a network one trusts.
        case keyOverPlainHTTP(SecretRef, host: String)
        /// The server sent the request to another `baseUrl`, which the user may point the
        /// setting at if it is the right server.
        case pointBaseURL(String)
        /// The server is to be verified against an authority of its own, which this build
        /// cannot do: added again without one, it is verified against the system's.
        case useSystemAuthorities(server: String)
    }

    /// What kind of failure this is: what a caller switches on.
    package let code: Code
    /// The HTTP status, for ``Code/unauthorized`` and ``Code/http``.
    package let status: Int?
    /// The line to show.
    package let message: String
    /// What the user can do about it, when there is one thing to do.
    package let remedy: Remedy?

    /// The error of kind `code`, shown as `message` (which must hold no key and no
    /// question), with the HTTP status where there is one and what to do where there is
    /// one thing to do.
    package init(_ code: Code, status: Int? = nil, _ message: String, remedy: Remedy? = nil) {
        self.code = code
        self.status = status
        self.message = message
        self.remedy = remedy
    }

    /// The answer was cancelled before it was complete.
    package static let cancelled = EngineError(.cancelled, "the answer was cancelled")

    package var description: String { message }
}
