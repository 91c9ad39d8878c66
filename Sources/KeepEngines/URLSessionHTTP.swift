import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engines module's HTTP port on `URLSession`, through ``DataTaskEvents``.
///
/// Its session is ephemeral and has no cache: what a server answers (its model list)
/// never reaches a cache file on disk, and no cookie is kept. A request that has no
/// answer within `timeout` fails with ``HTTPFailure``. A redirect is followed only as
/// ``RedirectPolicy`` allows (the same origin); any other comes back as the answer, with
/// its `Location`, for the keeper to report. A body longer than `bodyLimit` is not read
/// to its end: the request fails, and memory stays bounded.
package struct URLSessionHTTP: ServerHTTPPort {
    let timeout: Duration
    let bodyLimit: Int

    package init(timeout: Duration = .seconds(10), bodyLimit: Int = RemoteEngine.defaultAnswerLimit) {
        self.timeout = timeout
        self.bodyLimit = bodyLimit
    }

    package func get(_ url: URL, apiKey: String?) async throws(HTTPFailure) -> HTTPAnswer {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: seconds)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // No key, or an empty one: no Authorization header at all.
        if let apiKey, !apiKey.isEmpty {
            request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0...RemoteEngine.redirectLimit {
            let (response, body) = try await exchange(request, seconds: seconds)
            let location = response.value(forHTTPHeaderField: "Location")
            if let from = request.url,
                case .follow(let target) = RedirectPolicy.decide(
                    from: from, method: "GET", status: response.statusCode, location: location)
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
    private func exchange(_ request: URLRequest, seconds: Double) async throws(HTTPFailure) -> (HTTPURLResponse, Data) {
        var response: HTTPURLResponse?
        var body = Data()
        do {
            for try await event in DataTaskEvents.start(request, idleTimeout: seconds, byteLimit: bodyLimit) {
                switch event {
                case .response(let received): response = received
                case .data(let data): body.append(data)
                }
            }
        } catch is DataTaskEvents.LimitExceeded {
            throw HTTPFailure(reason: "its answer passed \(RemoteEngine.sizeText(bodyLimit)); not read")
        } catch {
            // URLError's description names the URL and the failure, never a header.
            throw HTTPFailure(reason: Self.reason(error))
        }
        guard let response else { throw HTTPFailure(reason: "the answer is not an HTTP response") }
        return (response, body)
    }

    private static func reason(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "the request failed" }
        switch error.code {
        case .cannotConnectToHost: return "the connection was refused"
        case .timedOut: return "no answer in time"
        case .cannotFindHost, .dnsLookupFailed: return "the host name does not resolve"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "there is no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "the secure connection failed (certificate or TLS)"
        default: return "the request failed (URLError \(error.code.rawValue))"
        }
    }
}
