import Foundation
import Testing

@testable import KeepEngines

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if os(Linux)
    /// The part of the libcurl transport that is its own, not the rules every transfer shares:
    /// its wait, which ends at the idle limit and at once when the stream ends. Against a
    /// socket on 127.0.0.1 the test answers (or not) by hand, over plain http: the authority
    /// file is read only for TLS, which the end-to-end tests cover.
    @Suite("The libcurl transport's own wait")
    struct CurlTransferTests {
        static let edge = EdgePolicy(userAgent: "keep/test")

        private func transfer(
            _ listener: Listener, idle: TimeInterval
        ) throws -> AsyncThrowingStream<
            DataTaskEvents.Event, any Error
        > {
            let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/v1/models"))
            return CurlTransfer.start(
                OutgoingRequest("GET", url, headers: ["Accept": "application/json"]), authority: "/nonexistent.pem",
                edge: Self.edge, limits: TransferLimits(idle: idle, headers: 60, total: 60, bytes: 1 << 20))
        }

        @Test("a server silent for the idle limit ends the transfer as timed out; one that answers within it is read")
        func idleLimit() async throws {
            // The pair first: an answer within the limit comes through whole.
            let answering = try Listener()
            let answered = Task { await answering.answerOne("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") }
            var status: Int?
            var body = Data()
            for try await event in try transfer(answering, idle: 2) {
                switch event {
                case .response(let response): status = response.statusCode
                case .data(let data): body.append(data)
                }
            }
            #expect(status == 200 && body == Data("ok".utf8))
            #expect(await answered.value.contains("User-Agent: keep/test"))

            // Connected (the kernel accepts it), never answered.
            let silent = try Listener()
            do {
                for try await _ in try transfer(silent, idle: 1) {}
                Issue.record("a silent server gave an answer")
            } catch let error as URLError {
                #expect(error.code == .timedOut)
            }
        }

        @Test("ending the stream (a cancelled turn) ends the transfer at once: the server sees the connection close")
        func endingTheStreamCloses() async throws {
            let listener = try Listener()
            let reading = Task { [self] in
                for try await _ in try transfer(listener, idle: 600) {}
            }
            #expect(await listener.acceptAndAwaitClose(afterRequest: { reading.cancel() }))
            _ = await reading.result
        }
    }

    /// A listening socket on 127.0.0.1 that a test serves by hand, one connection at a time,
    /// on threads of its own (accept and recv block).
    private final class Listener: Sendable {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    socket >= 0 && bind(socket, $0, length) == 0 && listen(socket, 4) == 0
                        && getsockname(socket, $0, &length) == 0
                }
            }
            guard bound else {
                if socket >= 0 { close(socket) }
                throw POSIXError(.EADDRNOTAVAIL)
            }
            descriptor = socket
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(descriptor) }

        /// Accepts one connection, reads its request head, and answers `response`; the head read.
        func answerOne(_ response: String) async -> String {
            await onThread { [descriptor] in
                let connection = accept(descriptor, nil, nil)
                defer { close(connection) }
                let head = Self.readHead(connection)
                _ = Array(response.utf8).withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                return head
            }
        }

        /// Accepts one connection, reads its request head, calls `then`, and answers whether the
        /// client then closed the connection (a read that ends, rather than one that waits).
        func acceptAndAwaitClose(afterRequest then: @escaping @Sendable () -> Void) async -> Bool {
            await onThread { [descriptor] in
                let connection = accept(descriptor, nil, nil)
                defer { close(connection) }
                guard !Self.readHead(connection).isEmpty else { return false }
                then()
                var byte: UInt8 = 0
                return recv(connection, &byte, 1, 0) == 0
            }
        }

        /// What came up to the blank line that ends a request's head.
        private static func readHead(_ connection: Int32) -> String {
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while !head.suffix(4).elementsEqual("\r\n\r\n".utf8), recv(connection, &byte, 1, 0) == 1 {
                head.append(byte)
            }
            return String(decoding: head, as: UTF8.self)
        }

        private func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { done in Thread { done.resume(returning: work()) }.start() }
        }
    }
#endif
