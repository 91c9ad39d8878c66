import Foundation
import KeepCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engines module's HTTP port on ``Transport``: URLSession (``DataTaskEvents``), or
/// libcurl (``CurlTransfer``) for a server with an authority of its own, as ``Transport``
/// chooses, under the same edge rules as every engine's request. The key travels in the
/// header of the protocol the server speaks (``ServerProtocol``), with that protocol's own
/// headers (Anthropic's `anthropic-version`).
///
/// Its sessions share and keep nothing (``SessionConfiguration``): what a server answers
/// (its model list) never reaches a cache file on disk, and no cookie is kept. A request
/// whose answer is not over within `timeout` (silent that long, or its headers or its
/// whole answer taking longer) fails with ``HTTPFailure``. A key never goes over plain
/// http to a host that is not this machine unless `keyOverHttpHosts` names it
/// (``CleartextRule``). A redirect is followed only as ``RedirectPolicy`` allows (the same
/// origin); any other comes back as the answer, with its `Location`, for the keeper to
/// report. A body longer than `bodyLimit` is not read to its end: the request fails, and
/// memory stays bounded.
package struct TransportHTTP: ServerHTTPPort {
    let timeout: Duration
    let bodyLimit: Int
    let userAgent: String

    /// The port sending `User-Agent: userAgent` (`keep/<version>`).
    package init(
        userAgent: String, timeout: Duration = .seconds(10), bodyLimit: Int = RemoteEngine.defaultAnswerLimit
    ) {
        self.userAgent = userAgent
        self.timeout = timeout
        self.bodyLimit = bodyLimit
    }

    package func get(
        _ url: URL, apiKey: APIKey?, keyOverHttpHosts: [String], authority: String?, wire: ServerProtocol
    ) async throws(HTTPFailure) -> HTTPAnswer {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let protocolWire = wire.wire
        var request = OutgoingRequest(
            "GET", url,
            headers: ["Accept": "application/json"].merging(
                protocolWire.headers, uniquingKeysWith: { first, _ in first }),
            key: apiKey, keyHeader: protocolWire.keyHeader)
        let edge = EdgePolicy(keyOverHttpHosts: keyOverHttpHosts, userAgent: userAgent)
        let limits = TransferLimits(idle: seconds, headers: seconds, total: seconds, bytes: bodyLimit)
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0...RemoteEngine.redirectLimit {
            let (response, body) = try await exchange(request, authority: authority, edge: edge, limits: limits)
            let location = response.value(forHTTPHeaderField: "Location")
            if case .follow(let target) = RedirectPolicy.decide(
                from: request.url, method: "GET", status: response.statusCode, location: location)
            {
                request.url = target
                continue
            }
            return HTTPAnswer(
                status: response.statusCode, server: response.value(forHTTPHeaderField: "Server"), body: Array(body),
                latency: clock.now - start, location: location)
        }
        throw HTTPFailure(reason: "it redirected more than \(RemoteEngine.redirectLimit) times")
    }

    /// One request: its response and its body, at most `bodyLimit` bytes.
    private func exchange(
        _ request: OutgoingRequest, authority: String?, edge: EdgePolicy, limits: TransferLimits
    ) async throws(HTTPFailure) -> (HTTPURLResponse, Data) {
        var response: HTTPURLResponse?
        var body = Data()
        do {
            for try await event in Transport.start(request, authority: authority, edge: edge, limits: limits) {
                switch event {
                case .response(let received): response = received
                case .data(let data): body.append(data)
                }
            }
        } catch let refusal as DataTaskEvents.CleartextRefusal {
            throw HTTPFailure(
                reason: "not asked: keep does not send the key over plain http to \(refusal.host), "
                    + CleartextRule.notThisMachine(refusal.detail))
        } catch let refusal as CertificateRefusal {
            throw HTTPFailure(
                reason: "not asked: " + refusal.words(host: request.url.host ?? "", authority: authority ?? ""))
        } catch is DataTaskEvents.LimitExceeded {
            throw HTTPFailure(reason: "its answer passed \(RemoteEngine.sizeText(bodyLimit)); not read")
        } catch is DataTaskEvents.TimeLimitReached {
            throw HTTPFailure(reason: "no answer in time")
        } catch {
            // The words, never URLError's domain and number, nor a header.
            throw HTTPFailure(reason: TransferFailure.words(error))
        }
        guard let response else { throw HTTPFailure(reason: "the answer is not an HTTP response") }
        return (response, body)
    }
}
