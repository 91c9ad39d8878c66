import Foundation
import KeepConformance
import Synchronization

/// A resolver of the test's own: a tiny DNS server on 127.0.0.1:53 inside a test's network
/// namespace, answering A queries from a table (any other type gets no answer, an unknown
/// name NXDOMAIN), so a name can be made to go where the test says, and nowhere else.
///
/// A name may have several answers in turn (``init(_:)``'s lists): the first A query gets
/// the first, the next the second, and so on, the last staying, which is how a rebinding
/// resolver answers loopback to a check and another address to the connection after it.
/// keep is pointed at it with ``launcher``: a mount namespace of its own in which
/// `/etc/resolv.conf` names 127.0.0.1 alone. Started from ``NetworkNamespace/listen(_:)``.
final class DNSResponder: Sendable {
    private let socket: Int32
    private let table: [String: [[String]]]
    private let asked = Mutex<[String: Int]>([:])
    /// The resolv.conf keep is given.
    let resolvConf: String

    /// Listens on 127.0.0.1:53 (call it inside the namespace) answering `table`: a name
    /// (lowercase, without its final dot) to the IPv4 addresses of each answer in turn.
    init(_ table: [String: [[String]]], in directory: TemporaryDirectory) throws {
        self.table = table
        resolvConf = directory.appending("resolv.conf")
        try "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n".write(
            toFile: resolvConf, atomically: true, encoding: .utf8)
        let socket = Foundation.socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw SpawnFailure(what: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        address.sin_port = UInt16(53).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard bound else {
            let code = errno
            close(socket)
            throw SpawnFailure(what: "bind 127.0.0.1:53", code: code)
        }
        self.socket = socket
        Thread { [self] in serve() }.start()
    }

    /// How many A queries for `name` were answered.
    func queries(_ name: String) -> Int { asked.withLock { $0[name] ?? 0 } }

    /// Starts a program with this resolver as the system's (a mount namespace of its own,
    /// `/etc/resolv.conf` bind-mounted over); after ``NetworkNamespace/launcher``.
    var launcher: [String] {
        [
            "/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount --bind \"$0\" /etc/resolv.conf && exec \"$@\"",
            resolvConf,
        ]
    }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 1500)
        while true {
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(socket, &buffer, buffer.count, 0, $0, &length)
                }
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }  // closed
            guard let reply = answer(Array(buffer[..<count])) else { continue }
            _ = withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socket, reply, reply.count, 0, $0, length)
                }
            }
        }
    }

    /// The reply to one query, or `nil` for what is not one.
    private func answer(_ query: [UInt8]) -> [UInt8]? {
        guard query.count >= 12 else { return nil }
        var index = 12
        var labels: [String] = []
        while index < query.count, query[index] != 0 {
            let length = Int(query[index])
            guard length < 64, index + 1 + length <= query.count else { return nil }
            labels.append(String(decoding: query[(index + 1)..<(index + 1 + length)], as: UTF8.self))
            index += 1 + length
        }
        guard index + 5 <= query.count else { return nil }
        let questionEnd = index + 5
        let type = UInt16(query[index + 1]) << 8 | UInt16(query[index + 2])
        let name = labels.joined(separator: ".").lowercased()
        var addresses: [String] = []
        var known = table[name] != nil
        if type == 1, let answers = table[name] {
            let turn = asked.withLock { asked in
                defer { asked[name, default: 0] += 1 }
                return asked[name] ?? 0
            }
            addresses = answers[min(turn, answers.count - 1)]
        } else if table[name] == nil {
            known = false
        }
        // Header: the query's id, a response (recursion available), one question, the answers.
        var reply = Array(query[0..<2])
        reply += [0x81, known ? 0x80 : 0x83, 0, 1, 0, UInt8(addresses.count), 0, 0, 0, 0]
        reply += query[12..<questionEnd]
        for address in addresses {
            var v4 = in_addr()
            guard inet_pton(AF_INET, address, &v4) == 1 else { continue }
            // The name as a pointer to the question's, type A, class IN, TTL 0, four bytes.
            reply += [0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4]
            reply += withUnsafeBytes(of: v4.s_addr) { Array($0) }
        }
        return reply
    }
}
