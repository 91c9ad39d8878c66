import Testing

@testable import KeepEngines

/// How a refused certificate is named: OpenSSL's verify results (as libcurl reports them)
/// turned into the reason a person can act on, and the one line that says it.
@Suite("A refused certificate, in words")
struct CertificateRefusalTests {
    @Test(
        "each verify result is named by what was wrong with the certificate",
        arguments: [
            (0, CertificateRefusal.Reason.otherName), (1, .otherName), (62, .otherName), (64, .otherName),
            (2, .otherAuthority), (7, .otherAuthority), (18, .otherAuthority), (19, .otherAuthority),
            (20, .otherAuthority), (21, .otherAuthority), (24, .otherAuthority), (9, .notYetValid), (10, .expired),
            (50, .other(code: 50)),
        ])
    func verifyResults(result: Int, reason: CertificateRefusal.Reason) {
        #expect(CertificateRefusal(verifyResult: result).reason == reason)
    }

    @Test("the line names the server, what was wrong and the authority file, and says nothing was sent")
    func line() {
        let refusal = CertificateRefusal(verifyResult: 20)
        #expect(
            refusal.message(server: "https://10.0.0.5:8443/v1", host: "10.0.0.5", authority: "/home/me/lab-ca.pem")
                == "refused the server at https://10.0.0.5:8443/v1: its certificate is not signed by the authority in "
                + "/home/me/lab-ca.pem (its --ca); nothing was sent")
        #expect(
            CertificateRefusal(verifyResult: 0).words(host: "lab.example", authority: "/ca.pem")
                == "its certificate is for another name than lab.example")
    }
}
