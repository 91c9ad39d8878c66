/// Why a server's certificate was refused when verified against the one authority that
/// server is to be verified against (`keep servers add NAME URL --ca FILE`): the TLS
/// handshake ended there, before a byte of the request (the key, the question) was sent.
/// A plain http URL for such a server is refused so too, before anything connects.
package struct CertificateRefusal: Error, Sendable, Equatable {
    /// What was wrong with the certificate, or with the authority.
    package enum Reason: Sendable, Equatable {
        /// Its chain does not lead to the authority: another authority signed it, or it
        /// signed itself.
        case otherAuthority
        /// It has expired.
        case expired
        /// It is not valid yet.
        case notYetValid
        /// It names another host than the one in the server's URL.
        case otherName
        /// The authority file cannot be read as PEM certificates (gone, unreadable, or
        /// holding none).
        case unreadableAuthority
        /// Another verification failure, by OpenSSL's number for it (`X509_V_ERR_…`).
        case other(code: Int)
        /// The server's URL is plain http: no certificate to verify, so nothing is sent.
        case plainHTTP
        /// This build cannot verify against one authority alone on this platform (libcurl is
        /// built in on Linux only), so nothing is sent: never unverified, nor verified
        /// against the system's authorities instead.
        case unverifiable
    }

    /// What was wrong.
    package let reason: Reason

    /// A refusal for `reason`.
    package init(_ reason: Reason) {
        self.reason = reason
    }

    /// The refusal for a failed verification whose result OpenSSL numbered `result`
    /// (`X509_V_ERR_…`, as libcurl reports it in `CURLINFO_SSL_VERIFYRESULT`). `0` or `1`, a
    /// chain that verified (or whose result was not recorded yet), means libcurl's own check
    /// of the name failed after it.
    package init(verifyResult result: Int) {
        switch result {
        // X509_V_OK: the chain verified and the name did not match; 1, the `!X509_V_OK` libcurl
        // (7.88) leaves when its own check of the name fails before it records the chain's
        // result; HOSTNAME_MISMATCH (62), IP_ADDRESS_MISMATCH (64).
        case 0, 1, 62, 64: reason = .otherName
        // UNABLE_TO_GET_ISSUER_CERT (2), CERT_SIGNATURE_FAILURE (7), DEPTH_ZERO_SELF_SIGNED_CERT
        // (18), SELF_SIGNED_CERT_IN_CHAIN (19), UNABLE_TO_GET_ISSUER_CERT_LOCALLY (20),
        // UNABLE_TO_VERIFY_LEAF_SIGNATURE (21), INVALID_CA (24).
        case 2, 7, 18, 19, 20, 21, 24: reason = .otherAuthority
        case 9: reason = .notYetValid  // CERT_NOT_YET_VALID
        case 10: reason = .expired  // CERT_HAS_EXPIRED
        default: reason = .other(code: result)
        }
    }

    /// The line for the server at `server` (its URL, for the message), whose host is `host`,
    /// verified against the authority in the file `authority`: what was wrong, and that
    /// nothing was sent.
    package func message(server: String, host: String, authority: String) -> String {
        "refused the server at \(server): \(words(host: host, authority: authority)); nothing was sent"
    }

    /// What was wrong, for a server whose host is `host`, verified against the authority in
    /// the file `authority`: `its certificate has expired`.
    package func words(host: String, authority: String) -> String {
        switch reason {
        case .otherAuthority: "its certificate is not signed by the authority in \(authority) (its --ca)"
        case .expired: "its certificate has expired"
        case .notYetValid: "its certificate is not valid yet (is this machine's clock right?)"
        case .otherName: "its certificate is for another name than \(host)"
        case .unreadableAuthority: "the authority file \(authority) (its --ca) cannot be read as PEM certificates"
        case .plainHTTP: "its URL is plain http, which has no certificate to verify against \(authority) (its --ca)"
        case .unverifiable:
            "it is to be verified against the authority in \(authority) alone, which this build cannot do on this "
                + "platform"
        case .other(let code):
            "its certificate was not verified against the authority in \(authority) (OpenSSL's verify error \(code))"
        }
    }
}
