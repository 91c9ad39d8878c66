#if canImport(CSSL)
    import CSSL
    import Foundation
    import Synchronization

    /// An https face for a ``LoopbackServer``: TLS on 127.0.0.1 with a certificate a test
    /// made (``TestAuthority``), each connection whose handshake completes relayed byte for
    /// byte, both ways, to the server behind it, which records and answers it as it does over
    /// plain http (streams, stalls and endless answers included).
    ///
    /// A client that refuses the certificate ends the handshake: nothing is relayed, and the
    /// server behind never sees a connection (``handshakes`` and its `connections` stay 0).
    /// Each connection is relayed on a thread of its own, with SIGPIPE blocked on that thread
    /// alone (libssl writes with `write`), so a client gone early is an error, not a signal.
    final class TLSFront: Sendable {
        let port: UInt16
        let host: String
        private let listener: Int32
        private let backend: LoopbackServer
        private let context: Context
        private let completed = Mutex(0)

        /// libssl's context, made once and only read after (SSL_new may be called from any thread).
        private struct Context: @unchecked Sendable {
            let pointer: OpaquePointer
        }

        /// Serves TLS with `issued` before `backend`, on `host` (an IPv4 address of this machine).
        init(_ backend: LoopbackServer, issued: TestAuthority.Issued, on host: String = "127.0.0.1") throws {
            self.host = host
            guard let context = SSL_CTX_new(TLS_server_method()) else { throw SandboxFailure("SSL_CTX_new failed") }
            guard SSL_CTX_use_certificate_chain_file(context, issued.certificate) == 1,
                SSL_CTX_use_PrivateKey_file(context, issued.key, SSL_FILETYPE_PEM) == 1
            else {
                SSL_CTX_free(context)
                throw SandboxFailure("libssl did not take \(issued.certificate)")
            }
            do {
                (listener, port) = try LoopbackServer.listen(on: host)
            } catch {
                SSL_CTX_free(context)
                throw error
            }
            self.backend = backend
            self.context = Context(pointer: context)
            Thread { [self] in acceptLoop() }.start()
        }

        /// `https://<host>:<port>/v1`, the base URL keep is given.
        var baseURL: String { "https://\(host):\(port)/v1" }

        /// How many TLS handshakes completed (each then relayed to the server behind).
        var handshakes: Int { completed.withLock { $0 } }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            // Connections still relaying hold a reference of their own (SSL_new counts one).
            SSL_CTX_free(context.pointer)
        }

        private func acceptLoop() {
            LoopbackServer.acceptAll(on: listener) { [self] connection in
                Thread { [self] in relay(connection) }.start()
            }
        }

        /// The handshake on `client`, then every byte both ways until either side closes.
        private func relay(_ client: Int32) {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            defer { close(client) }
            guard let ssl = SSL_new(context.pointer) else { return }
            defer { SSL_free(ssl) }
            guard SSL_set_fd(ssl, client) == 1, SSL_accept(ssl) == 1 else { return }  // refused: nothing relayed
            completed.withLock { $0 += 1 }
            guard let server = connectBackend() else { return }
            defer { close(server) }
            var buffer = [UInt8](repeating: 0, count: 16 << 10)
            relaying: while true {
                var ends = [
                    pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: server, events: Int16(POLLIN), revents: 0),
                ]
                if SSL_pending(ssl) == 0 {
                    guard poll(&ends, 2, -1) >= 0 || errno == EINTR else { break }
                }
                if SSL_pending(ssl) > 0 || ends[0].revents != 0 {
                    let count = SSL_read(ssl, &buffer, Int32(buffer.count))
                    guard count > 0, Self.sendAll(server, buffer[..<Int(count)]) else { break relaying }
                }
                if ends[1].revents != 0 {
                    let count = recv(server, &buffer, buffer.count, 0)
                    guard count > 0 else { break relaying }
                    var sent = 0
                    while sent < count {
                        let wrote = buffer[sent..<count].withUnsafeBytes {
                            SSL_write(ssl, $0.baseAddress, Int32($0.count))
                        }
                        guard wrote > 0 else { break relaying }
                        sent += Int(wrote)
                    }
                }
            }
            SSL_shutdown(ssl)
        }

        /// A connection to the server behind, or `nil`.
        private func connectBackend() -> Int32? {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = backend.port.bigEndian
            guard inet_pton(AF_INET, backend.host, &address.sin_addr) == 1 else {
                close(socket)
                return nil
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(socket)
                return nil
            }
            return socket
        }

        private static func sendAll(_ socket: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
            var rest = bytes
            while !rest.isEmpty {
                let sent = rest.withUnsafeBytes {
                    Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                rest = rest.dropFirst(sent)
            }
            return true
        }
    }
#endif
