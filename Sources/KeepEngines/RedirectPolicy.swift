import Foundation

/// Whether keep follows a redirect a server answered: the one table both HTTP paths (the
/// chat engine and the model list) decide by.
///
/// A request may carry the user's key and conversation, which belong to the origin of
/// `baseUrl` alone. So a redirect is followed only to the same origin (scheme, host and
/// port), and only when the request survives it whole: 307 and 308 keep the method and the
/// body; 301, 302 and 303 turn a POST into a GET (the question would be lost), so for a
/// POST they are refused, and for a GET (which has no body) they are followed. A redirect
/// to another origin, https to http above all, is never followed: the user is told where
/// the server tried to send the request, and which `baseUrl` would reach it
/// (``Refusal/suggestedBase(suffix:hidingKey:)``).
package enum RedirectPolicy {
    /// The statuses that redirect a request.
    package static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// What to do with a redirect.
    package enum Decision: Equatable, Sendable {
        /// Send the same request (method, headers, body) to this URL.
        case follow(URL)
        /// Do not follow; the turn fails with
        /// ``Refusal/message(server:suffix:hidingKey:)``.
        case refuse(Refusal)
    }

    /// Why a redirect is not followed.
    package enum Refusal: Equatable, Sendable {
        /// To another origin (another host, port or scheme): `to` is where it points.
        case otherOrigin(status: Int, to: URL)
        /// From https to plain http.
        case downgrade(status: Int, to: URL)
        /// Same origin, but the status turns this method into a GET.
        case methodChange(status: Int, method: String, to: URL)
        /// No usable `Location` header.
        case noLocation(status: Int)

        /// One line naming where the server tried to send the request and why keep did not
        /// follow, with the key hidden from the address the server gave. `suffix` is the path
        /// keep appended to `baseUrl` (`/chat/completions`, `/models`). Which `baseUrl` would
        /// reach that server is ``suggestedBase(suffix:hidingKey:)``, for the caller to offer.
        package func message(server: String, suffix: String, hidingKey key: APIKey?) -> String {
            switch self {
            case .otherOrigin(let status, let url):
                return "the server at \(server) redirected the request (HTTP \(status)) to "
                    + "\(Self.shown(url, key)); keep sends a request (and your key) only to baseUrl's own "
                    + "server, so it did not follow"
            case .downgrade(let status, let url):
                return "the server at \(server) redirected the request (HTTP \(status)) from https to plain "
                    + "http (\(Self.shown(url, key))); keep never follows that, as it would send the request "
                    + "(and your key) unencrypted"
            case .methodChange(let status, let method, let url):
                return "the server at \(server) answered HTTP \(status), moving the request to "
                    + "\(Self.shown(url, key)) as a GET, which would drop the \(method)'s question; keep "
                    + "did not resend it"
            case .noLocation(let status):
                return "the server at \(server) answered HTTP \(status) (a redirect) without saying where to"
            }
        }

        /// The `baseUrl` that would reach the server the request was sent to, when the user
        /// may want to point keep there (another origin, or a move that changed the method):
        /// the address without its query, fragment and `suffix`, the key hidden. `nil` for a
        /// downgrade to plain http, and for no address at all.
        package func suggestedBase(suffix: String, hidingKey key: APIKey?) -> String? {
            switch self {
            case .otherOrigin(_, let url), .methodChange(_, _, let url): Self.base(of: url, suffix: suffix, key)
            case .downgrade, .noLocation: nil
            }
        }

        /// The address a redirect named, key hidden, query and fragment left off (they may
        /// hold tokens of their own).
        private static func shown(_ url: URL, _ key: APIKey?) -> String {
            ServerText.hidingKey(Self.withoutQuery(url), key)
        }

        /// The `baseUrl` to set for the server `url` is on: `url` without its query and
        /// fragment, and without `suffix` when its path ends with it.
        private static func base(of url: URL, suffix: String, _ key: APIKey?) -> String {
            var text = withoutQuery(url)
            if text.hasSuffix(suffix) { text.removeLast(suffix.count) }
            return ServerText.hidingKey(text, key)
        }

        private static func withoutQuery(_ url: URL) -> String {
            guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
            parts.query = nil
            parts.fragment = nil
            parts.user = nil
            parts.password = nil
            return parts.string ?? url.absoluteString
        }
    }

    /// The decision for a `status` answer with `location` to a `method` request for `from`.
    /// `nil` when `status` is not a redirect.
    package static func decide(from: URL, method: String, status: Int, location: String?) -> Decision? {
        guard redirectStatuses.contains(status) else { return nil }
        guard let location, let target = URL(string: location, relativeTo: from)?.absoluteURL,
            let origin = ServerOrigin(from), let targetOrigin = ServerOrigin(target)
        else { return .refuse(.noLocation(status: status)) }
        if origin.isSecure, !targetOrigin.isSecure { return .refuse(.downgrade(status: status, to: target)) }
        guard origin == targetOrigin else { return .refuse(.otherOrigin(status: status, to: target)) }
        let keepsMethod = status == 307 || status == 308 || method.uppercased() == "GET"
        guard keepsMethod else { return .refuse(.methodChange(status: status, method: method, to: target)) }
        return .follow(target)
    }
}
