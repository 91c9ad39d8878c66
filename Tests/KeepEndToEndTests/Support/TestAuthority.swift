import Foundation
import KeepConformance
import KeepTestSupport

/// A certificate authority of a test's own, and the server certificates it signs: made with
/// the `openssl` command in the test's temporary directory, valid for a day (or, asked for,
/// already expired), trusted by nothing but what the test points at it.
struct TestAuthority: Sendable {
    /// A server certificate and its private key, as PEM files.
    struct Issued: Sendable {
        let certificate: String
        let key: String
    }

    /// The authority's certificate (PEM): what `--ca` names, or a system bundle holds.
    let certificate: String
    private let key: String
    private let folder: String

    /// A new authority called `name` (its subject's CN), its files in a folder of that name
    /// under `directory`.
    init(_ name: String, in directory: TemporaryDirectory) throws {
        folder = directory.appending("authority-" + name.replacingOccurrences(of: " ", with: "-"))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        certificate = (folder as NSString).appendingPathComponent("ca.pem")
        key = (folder as NSString).appendingPathComponent("ca.key")
        try Self.openssl(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
            "-subj", "/CN=\(name)", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
            "keyUsage=critical,keyCertSign")
    }

    /// A server certificate for `host` (an IPv4 address, else a DNS name) signed by this
    /// authority, valid for `days` from now (a negative number: expired that long ago), its
    /// files called `name`.
    func issue(for host: String, days: Int = 1, as name: String = "server") throws -> Issued {
        func path(_ suffix: String) -> String { (folder as NSString).appendingPathComponent(name + suffix) }
        let isAddress = host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
        try
            "subjectAltName=\(isAddress ? "IP" : "DNS"):\(host)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: path(".ext"), atomically: true, encoding: .utf8)
        try Self.openssl(
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path(".key"), "-out", path(".csr"), "-subj",
            "/CN=\(host)")
        try Self.openssl(
            "x509", "-req", "-in", path(".csr"), "-CA", certificate, "-CAkey", key, "-CAcreateserial", "-out",
            path(".pem"), "-days", "\(days)", "-extfile", path(".ext"))
        return Issued(certificate: path(".pem"), key: path(".key"))
    }

    /// A folder standing in for `/etc/ssl/certs` that trusts this authority alone, both ways
    /// a TLS library looks there: as the bundle `ca-certificates.crt` and as a hashed link
    /// (`openssl rehash`).
    func systemFolder() throws -> String {
        let certs = (folder as NSString).appendingPathComponent("certs")
        try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: certificate, toPath: (certs as NSString).appendingPathComponent("ca-certificates.crt"))
        try Self.openssl("rehash", certs)
        return certs
    }

    /// Runs `openssl arguments`, quietly; throws when it fails.
    private static func openssl(_ arguments: String...) throws {
        let step = Process()
        step.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        step.arguments = arguments
        step.standardOutput = FileHandle.nullDevice
        step.standardError = FileHandle.nullDevice
        try step.run()
        guard step.waitForExit() == 0 else { throw SandboxFailure("openssl \(arguments[0]) failed") }
    }
}
