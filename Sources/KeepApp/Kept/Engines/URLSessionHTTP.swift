import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engines module's HTTP port on `URLSession`.
///
/// Its session is ephemeral and has no cache: what a server answers (its model list)
/// never reaches a cache file on disk, and no cookie is kept. A request that has no
/// answer within `timeout` fails with ``HTTPFailure``.
struct URLSessionHTTP: ServerHTTPPort {
    let timeout: Duration

    init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    func get(_ url: URL, apiKey: String?) async throws(HTTPFailure) -> HTTPAnswer {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: seconds)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // No key, or an empty one: no Authorization header at all.
        if let apiKey, !apiKey.isEmpty {
            request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = seconds
        let session = URLSession(configuration: configuration)
        // The session holds its delegate queue until invalidated; it is used for one request.
        defer { session.finishTasksAndInvalidate() }

        let clock = ContinuousClock()
        let start = clock.now
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            // URLError's description names the URL and the failure, never a header.
            throw HTTPFailure(reason: Self.reason(error))
        }
        let latency = clock.now - start
        guard let http = response as? HTTPURLResponse else {
            throw HTTPFailure(reason: "the answer is not an HTTP response")
        }
        return HTTPAnswer(
            status: http.statusCode, server: http.value(forHTTPHeaderField: "Server"), body: Array(data),
            latency: latency)
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
