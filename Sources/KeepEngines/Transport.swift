import Foundation

/// Which HTTP library a request goes through: the one place that chooses, for the chat
/// engine and the model list alike.
///
/// A server verified against an authority of its own (`keep servers add --ca FILE`) is
/// asked over https alone (a plain http URL ends the stream with ``CertificateRefusal``
/// before anything connects), through libcurl with that file alone (``CurlTransfer``);
/// every other server through URLSession (``DataTaskEvents``). Both keep the same rules and
/// report the same events. Where libcurl is not built in (any platform but Linux), a
/// request to such a server ends with ``CertificateRefusal``
/// (``CertificateRefusal/Reason/unverifiable``) before anything connects: it is never sent
/// unverified, nor verified against the system's authorities instead.
enum Transport {
    /// The events of `request` to a server verified against the PEM file `authority` (`nil`:
    /// the system's authorities), under `edge`'s rules and `limits`.
    static func start(
        _ request: OutgoingRequest, authority: String?, edge: EdgePolicy, limits: TransferLimits
    ) -> AsyncThrowingStream<DataTaskEvents.Event, any Error> {
        guard let authority else { return DataTaskEvents.start(request, edge: edge, limits: limits) }
        guard ServerOrigin(request.url)?.isSecure == true else {
            return AsyncThrowingStream { throw CertificateRefusal(.plainHTTP) }
        }
        #if canImport(CCurl)
            return CurlTransfer.start(request, authority: authority, edge: edge, limits: limits)
        #else
            _ = authority
            return AsyncThrowingStream { throw CertificateRefusal(.unverifiable) }
        #endif
    }
}
