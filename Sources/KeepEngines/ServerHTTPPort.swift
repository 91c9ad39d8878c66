import Foundation
import KeepCore

/// How the engines module asks a server about itself: one HTTP GET. A port of the
/// module's own, so its decisions are tested against a scripted server and run against
/// ``TransportHTTP``.
///
/// The contract: the key goes in the header of the protocol `wire` the server speaks
/// (`Authorization: Bearer <key>`, `x-api-key`, `x-goog-api-key`), only for a key that is there (an
/// ``APIKey`` is never empty: a local server needs none, and `Bearer ` alone is never
/// sent), and never over plain http to a host that is not this machine unless
/// `keyOverHttpHosts` names it (``CleartextRule``); any
/// HTTP status is an answer, never an error (a redirect the port does not follow too, with
/// its `Location`); ``HTTPFailure`` means no answer came (no route, refused, timed out,
/// too long), and its reason never holds the key. A server with an `authority` of its own (a
/// PEM file, `keep servers add --ca`) is verified against that file alone, never the system's
/// authorities.
package protocol ServerHTTPPort: Sendable {
    /// GETs `url` of a server speaking `wire` (verified against the PEM file `authority`,
    /// when there is one); answers the status, the `Server` header, the body and how long it
    /// took.
    func get(
        _ url: URL, apiKey: APIKey?, keyOverHttpHosts: [String], authority: String?, wire: ServerProtocol
    ) async throws(HTTPFailure) -> HTTPAnswer
}

extension ServerHTTPPort {
    /// GETs `url` of an OpenAI-compatible server (``get(_:apiKey:keyOverHttpHosts:authority:wire:)``).
    package func get(
        _ url: URL, apiKey: APIKey?, keyOverHttpHosts: [String], authority: String?
    ) async throws(HTTPFailure) -> HTTPAnswer {
        try await get(url, apiKey: apiKey, keyOverHttpHosts: keyOverHttpHosts, authority: authority, wire: .openai)
    }
}

/// A server's answer to a GET.
package struct HTTPAnswer: Sendable, Equatable {
    /// The HTTP status code.
    package let status: Int
    /// What the `Server` header says, when there is one.
    package let server: String?
    /// The body's bytes.
    package let body: [UInt8]
    /// From sending the request to having the whole body.
    package let latency: Duration
    /// The `Location` header of a redirect that was not followed.
    package var location: String? = nil

    package init(status: Int, server: String?, body: [UInt8], latency: Duration, location: String? = nil) {
        self.status = status
        self.server = server
        self.body = body
        self.latency = latency
        self.location = location
    }
}

/// No answer came from the server, and why, in words.
package struct HTTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package let reason: String

    package init(reason: String) {
        self.reason = reason
    }

    package var description: String { reason }
}
