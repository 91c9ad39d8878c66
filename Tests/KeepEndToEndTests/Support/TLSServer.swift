import Foundation
import KeepConformance
import KeepTestSupport

/// An https server for the tests: `openssl s_server -WWW`, serving the files of a directory
/// over TLS with a certificate made for the test, signed by a certificate authority of the
/// test's own (``TestAuthority``).
///
/// keep trusts that authority only where the test says so: ``trustingLauncher`` starts keep
/// in a mount namespace of its own (`unshare -m`) in which the authority's certificate is
/// bind-mounted over the system bundle libcurl reads; nothing outside that process sees it.
/// `s_server -WWW` answers `GET /path` with the file at that path, one connection at a time.
final class TLSServer: Sendable {
    let port: UInt16
    let host: String
    /// The authority's certificate (PEM).
    let authority: String
    private let server: Process

    /// The system bundle libcurl reads its trusted authorities from (Debian's).
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    /// Makes an authority and a certificate for `host`, then serves `files` (path → text)
    /// from `directory`; started through `launcher` (such as `nsenter` into a namespace).
    init(
        host: String = "127.0.0.1", files: [String: String], in directory: TemporaryDirectory, launcher: [String] = []
    )
        throws
    {
        let base = directory.appending("tls")
        let www = (base as NSString).appendingPathComponent("www")
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        for (path, text) in files {
            let file = (www as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
        let authority = try TestAuthority("keep test authority", in: directory)
        let issued = try authority.issue(for: host)
        let server = Process()
        let command = [
            "/usr/bin/openssl", "s_server", "-accept", "\(host):0", "-cert", issued.certificate, "-key", issued.key,
            "-WWW",
        ]
        // Line-buffered, so the ACCEPT line comes through the pipe at once.
        let program = launcher + ["/usr/bin/stdbuf", "-oL"] + command
        server.executableURL = URL(fileURLWithPath: program[0])
        server.arguments = Array(program.dropFirst())
        server.currentDirectoryURL = URL(fileURLWithPath: www)
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        // It says `ACCEPT host:port` once it listens.
        var said = ""
        func listening() -> Bool {
            said.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains {
                $0.hasPrefix("ACCEPT ")
            }
        }
        while !listening() {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }  // it ended
            said += String(decoding: data, as: UTF8.self)
        }
        guard let line = said.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
            let port = line.split(separator: ":").last.flatMap({ UInt16($0) })
        else {
            kill(server.processIdentifier, SIGKILL)
            _ = server.waitForExit()
            throw SandboxFailure("openssl s_server did not start: \(said)")
        }
        self.port = port
        self.host = host
        self.server = server
        self.authority = authority.certificate
    }

    /// `https://<host>:<port>/v1`.
    var baseURL: String { "https://\(host):\(port)/v1" }

    /// Starts a program in a mount namespace of its own where the system bundle is this
    /// server's authority alone: `unshare -m` (private propagation), a bind mount, exec.
    var trustingLauncher: [String] {
        [
            "/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount --bind \"$0\" \(Self.systemBundle) && exec \"$@\"",
            authority,
        ]
    }

    deinit {
        // s_server does not end on SIGTERM: SIGKILL, then reaped.
        kill(server.processIdentifier, SIGKILL)
        _ = server.waitForExit()
    }
}
