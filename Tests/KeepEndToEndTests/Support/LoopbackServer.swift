import Foundation
import Synchronization

/// An OpenAI-compatible HTTP server on 127.0.0.1, for the tests, on plain POSIX sockets: it
/// records every request it gets (method, path, headers, body) and answers as the test
/// scripts it, streaming server-sent events piece by piece and, with a ``Gate``, stopping
/// mid-answer until the test lets it go on.
///
/// It listens on a port the system picks, on the loopback address only (or, for a test in a
/// network namespace of its own, on that namespace's TEST-NET address). Each connection
/// is served on a thread of its own, one request per connection (`Connection: close`).
/// ``openAI(chat:models:)`` routes `POST /v1/chat/completions` and `GET /v1/models`.
final class LoopbackServer: Sendable {
    /// One request as the server received it.
    struct Request: Sendable {
        let method: String
        let path: String
        /// Header lines in the order received, names as sent.
        let headers: [(name: String, value: String)]
        let body: Data

        /// The value of the header `name` (any case), or `nil` when it was not sent.
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as a JSON object, or `nil`.
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        }
    }

    /// What the server does with a request.
    typealias Handler = @Sendable (Request, Responder) -> Void

    let port: UInt16
    /// The IPv4 address it listens on.
    let host: String
    private let listener: Int32
    private let handler: Handler
    private let log = Mutex<[Request]>([])
    private let accepted = Mutex(0)
    private let stopped = Mutex(false)

    /// `http://<host>:<port>/v1`, the base URL keep is given.
    var baseURL: String { "http://\(host):\(port)/v1" }

    /// `http://<host>:<port>`, the server's origin.
    var origin: String { "http://\(host):\(port)" }

    /// How many connections it accepted, a request read from them or not: a client that
    /// connected and sent nothing counts too.
    var connections: Int { accepted.withLock { $0 } }

    /// Starts listening on `host` (127.0.0.1 unless a test's own network namespace gives
    /// another) and `port` (any free one unless given); `handler` answers every request.
    init(host: String = "127.0.0.1", port requested: UInt16 = 0, _ handler: @escaping Handler) throws {
        self.handler = handler
        self.host = host
        (listener, port) = try Self.listen(on: host, port: requested)
        Thread { [self] in acceptLoop() }.start()
    }

    /// A listening TCP socket on `host` (an IPv4 address) and `port` (0: any free one), and
    /// the port it got.
    static func listen(on host: String, port requested: UInt16 = 0) throws -> (socket: Int32, port: UInt16) {
        var hostAddress = in_addr()
        guard inet_pton(AF_INET, host, &hostAddress) == 1 else {
            throw SpawnFailure(what: "inet_pton \(host)", code: 0)
        }
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw SpawnFailure(what: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = hostAddress  // 127.0.0.1 unless the test's own namespace says otherwise
        address.sin_port = requested.bigEndian  // 0: any free port
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && Foundation.listen(socket, 64) == 0
                    && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(socket)
            throw SpawnFailure(what: "bind/listen on \(host)", code: code)
        }
        return (socket, UInt16(bigEndian: address.sin_port))
    }

    /// Every request received so far, in order.
    var requests: [Request] { log.withLock { $0 } }

    /// Stops accepting connections; connections being served finish on their own.
    func stop() {
        let already = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !already else { return }
        // shutdown wakes the accept blocked on the socket; close alone would not.
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit {
        stop()
    }

    private func acceptLoop() {
        Self.acceptAll(on: listener) { [self] connection in
            accepted.withLock { $0 += 1 }
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Accepts every connection on `listener` until it is shut down, handing each to
    /// `accepted` on this thread.
    static func acceptAll(on listener: Int32, _ accepted: (Int32) -> Void) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // stopped
            }
            // Close-on-exec at once (accept4 is not in the Swift module). A child started in
            // the instant before could still inherit it; answers are sized or chunked, never
            // ended by the close, so such a stray copy cannot hold up a client.
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            accepted(connection)
        }
    }

    /// Reads one request from `connection`, records it, and lets the handler answer.
    private func serve(_ connection: Int32) {
        let responder = Responder(connection)
        defer { responder.close() }
        guard let request = readRequest(connection, responder) else { return }
        log.withLock { $0.append(request) }
        handler(request, responder)
    }

    private func readRequest(_ connection: Int32, _ responder: Responder) -> Request? {
        var buffer = Data()
        let separator = Data("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.range(of: separator) == nil {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
        guard let end = buffer.range(of: separator) else { return nil }
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var body = Data(buffer[end.upperBound...])
        let requestLine = head[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        let headers = head.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        if header("expect")?.lowercased() == "100-continue" {
            // curl waits for this before it sends a large body.
            responder.raw("HTTP/1.1 100 Continue\r\n\r\n")
        }
        let length = Int(header("content-length") ?? "0") ?? 0
        while body.count < length {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            body.append(contentsOf: chunk[..<count])
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }
}

// MARK: - Scripted answers

extension LoopbackServer {
    /// Routes like an OpenAI-compatible server: `POST …/chat/completions` to `chat`,
    /// `GET …/models` to a model list of `models`, anything else to a 404.
    static func openAI(chat: @escaping Handler, models: [String] = ["test-model"]) -> Handler {
        { request, responder in
            switch (request.method, request.path) {
            case ("POST", let path) where path.hasSuffix("/chat/completions"):
                chat(request, responder)
            case ("GET", let path) where path.hasSuffix("/models"):
                let list = models.map { "{\"id\":\"\($0)\",\"object\":\"model\"}" }.joined(separator: ",")
                responder.send(status: 200, body: "{\"object\":\"list\",\"data\":[\(list)]}")
            default:
                responder.send(status: 404, body: "{\"error\":{\"message\":\"no route for \(request.path)\"}}")
            }
        }
    }

    /// A streamed answer in `pieces`, then `[DONE]`. With a `gate`, the first `before`
    /// pieces are sent, then the server waits for the gate before sending the rest.
    static func streaming(_ pieces: [String], gate: Gate? = nil, before: Int = 0) -> Handler {
        openAI { _, responder in
            responder.beginEvents()
            for (index, piece) in pieces.enumerated() {
                if index == before, let gate { gate.wait() }
                responder.content(piece)
            }
            if pieces.count == before, let gate { gate.wait() }
            responder.done()
        }
    }

    /// Every request answered with a redirect: `status` and `Location: location`.
    static func redirecting(status: Int, to location: String) -> Handler {
        { _, responder in
            responder.send(
                status: status, headers: ["Location": location, "Content-Type": "text/html"],
                body: "<a href=\"\(location)\">moved</a>")
        }
    }

    /// A stream that never ends: `piece` as chunk after chunk until the client goes away
    /// (or, as a guard for a broken test, `cap` bytes have gone).
    static func endless(_ piece: String, cap: Int = 1 << 30) -> Handler {
        openAI { _, responder in
            responder.beginEvents()
            var total = 0
            let event =
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\(piece)\"}}]}\n\n"
            while total < cap, responder.chunkSent(event) {
                total += event.utf8.count
            }
        }
    }

    /// A streamed answer in `pieces`, then the usage OpenAI counts (`prompt`, `completion`),
    /// then `[DONE]`.
    static func streaming(_ pieces: [String], usage: (prompt: Int, completion: Int)) -> Handler {
        openAI { _, responder in
            responder.beginEvents()
            for piece in pieces { responder.content(piece) }
            responder.usage(prompt: usage.prompt, completion: usage.completion)
            responder.done()
        }
    }

    /// Every chat request answered with `status` and the JSON `body`.
    static func failing(status: Int, body: String) -> Handler {
        openAI { _, responder in responder.send(status: status, body: body) }
    }
}

/// How a handler answers: a whole response, or server-sent events one by one.
///
/// Events go out in chunked transfer encoding, each as it is written, and the closing
/// chunk is sent by ``close()``: the end of the answer is marked in the stream itself.
final class Responder: Sendable {
    private let connection: Mutex<(descriptor: Int32?, chunked: Bool)>

    init(_ connection: Int32) {
        self.connection = Mutex((connection, false))
    }

    /// A whole response with a JSON body.
    func send(status: Int, body: String) {
        send(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A whole response with `headers` (as given, bytes and all) and `body`.
    func send(status: Int, headers: [String: String], body: String) {
        let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        raw(
            "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\n\(lines)"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }

    /// The head of a streamed answer.
    func beginEvents() {
        raw(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        connection.withLock { $0.chunked = true }
    }

    /// One event carrying `data`.
    func event(_ data: String) {
        chunk("data: \(data)\n\n")
    }

    /// One chunk of the answer, as OpenAI streams it (`choices[0].delta.content`).
    func content(_ text: String) {
        let escaped = String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
        event("{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\(escaped)}}]}")
    }

    /// The last chunk OpenAI streams when asked `stream_options.include_usage`: no choices,
    /// and the tokens it counted.
    func usage(prompt: Int, completion: Int) {
        event(
            "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":\(prompt),"
                + "\"completion_tokens\":\(completion),\"total_tokens\":\(prompt + completion)}}")
    }

    /// The end of a streamed answer.
    func done() {
        event("[DONE]")
    }

    /// `text` as one chunk of the body (as it is, before ``beginEvents()``).
    func chunk(_ text: String) {
        chunkSent(text)
    }

    /// ``chunk(_:)``, answering whether it went (`false` once the client has gone away).
    @discardableResult
    func chunkSent(_ text: String) -> Bool {
        let chunked = connection.withLock { $0.chunked }
        return raw(chunked ? String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n" : text)
    }

    /// `text` as it is, on the wire; answers whether all of it went (`false` once the
    /// client has gone away).
    @discardableResult
    func raw(_ text: String) -> Bool {
        connection.withLock { connection in
            guard let open = connection.descriptor else { return false }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let sent = bytes.withUnsafeBytes {
                    Foundation.send(open, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }  // the client went away
                bytes = bytes.dropFirst(sent)
            }
            return true
        }
    }

    /// Ends the response: the closing chunk of a stream, then the connection.
    func close() {
        if connection.withLock({ $0.chunked }) { raw("0\r\n\r\n") }
        connection.withLock { connection in
            if let open = connection.descriptor { Foundation.close(open) }
            connection.descriptor = nil
        }
    }
}
