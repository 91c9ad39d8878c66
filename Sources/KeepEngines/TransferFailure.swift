import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a transfer failed, in plain words: what the HTTP library reported, never its
/// domain and number (`NSURLErrorDomain error -1000`), and never a header's value.
package enum TransferFailure {
    /// A failure a transport says in its own words, where `URLError` has no code for it
    /// (such as libcurl's, ``CurlTransfer``): words that never hold a header's value.
    struct Described: Error, Equatable {
        let words: String
    }

    /// The words for `error`, as a transfer's stream or URLSession threw it.
    package static func words(_ error: any Error) -> String {
        if let described = error as? Described { return described.words }
        guard let error = error as? URLError else { return "the HTTP library gave no reason" }
        switch error.code {
        case .cannotConnectToHost: return "the connection was refused"
        case .timedOut: return "no answer in time"
        case .cannotFindHost, .dnsLookupFailed: return "the host name does not resolve"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "there is no network"
        case .badURL, .unsupportedURL:
            return "the HTTP library cannot use this address (an IPv6 address in brackets is one it cannot use)"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            return "the secure connection failed (certificate or TLS)"
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return "the server's answer is not HTTP keep can read"
        case .zeroByteResource: return "the server closed the connection without answering"
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return "it redirected in a way keep does not follow"
        case .dataLengthExceedsMaximum: return "its answer is larger than keep reads"
        case .cancelled: return "it was cancelled"
        case .unknown where error.localizedDescription == "Out of memory":
            // libcurl says "Out of memory" when a server's response headers pass the most it
            // reads (100 KB a header), which is what a server gets to by sending them.
            return "the server's response headers are larger than the HTTP library reads (it calls this "
                + "\"out of memory\")"
        default:
            return "the HTTP library failed (code \(error.code.rawValue)) and gave no reason"
        }
    }
}
