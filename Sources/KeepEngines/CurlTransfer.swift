import Foundation
import KeepPorts
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

#if canImport(CCurl)
    internal import CCurl

    /// The transport for a server verified against an authority of its own (`keep servers
    /// add NAME URL --ca FILE`): one request, sent by libcurl on a thread of its own, its
    /// bytes turned into the same events and failures as ``DataTaskEvents`` gives (the
    /// response head, then each piece of the body as it arrives).
    ///
    /// FoundationNetworking cannot do this on Linux: it never hands a server-trust challenge
    /// to a delegate and takes no authority file per session. libcurl takes one per transfer:
    /// `CURLOPT_CAINFO` is the file, `CURLOPT_CAPATH` is cleared (Debian's libcurl would
    /// otherwise also read `/etc/ssl/certs`), and `CURLOPT_SSL_VERIFYPEER` and
    /// `CURLOPT_SSL_VERIFYHOST` are on, so the server's chain must lead to a certificate of
    /// that file and name the URL's host, and the system's authorities vouch for nothing
    /// here. A certificate refused so ends the stream with ``CertificateRefusal`` (another
    /// authority, expired, not yet valid, another name, an unreadable file) in the TLS
    /// handshake (or, for the name, which libcurl checks itself, right after it), before a
    /// byte of the request is sent. Verification is never off.
    ///
    /// Every other rule is the one every transfer keeps (``Transfer/launch(_:edge:limits:continuation:)``):
    /// the cleartext rule and pinning before anything connects (a pinned request goes to its
    /// address through `CURLOPT_RESOLVE`, the URL and `Host` unchanged), the header and total
    /// time limits. Here too: `User-Agent` from the edge; the key's header built from the
    /// key's bytes when the request is sent, and libcurl's copy of it overwritten with zeros
    /// before it is freed; no redirect followed (`CURLOPT_FOLLOWLOCATION` off: a redirect
    /// comes through as the response, for ``RedirectPolicy``); silence longer than the idle
    /// limit ends the transfer with `URLError(.timedOut)`; a body past the byte limit with
    /// ``DataTaskEvents/LimitExceeded``; stopping the stream (Ctrl-C cancelling the turn)
    /// wakes the transfer's wait (`curl_multi_wakeup`) and ends it there.
    ///
    /// Nothing of libcurl's own is used: no cookie engine (never started: no
    /// `CURLOPT_COOKIEFILE`), no `~/.netrc` (`CURLOPT_NETRC` ignored), no proxy (`CURLOPT_PROXY`
    /// empty, which libcurl reads as none, whatever `https_proxy`, `http_proxy` or `ALL_PROXY`
    /// say: such a server is on the user's own network, and asked directly), no
    /// `Expect: 100-continue`, no `Accept-Encoding`, http and https only, TLS 1.2 or later.
    final class CurlTransfer: Transfer {
        private struct State {
            var stopped = false
            var responded = false
            /// The transfer's multi handle while it runs, for ``stop(throwing:)`` to wake its wait.
            var multi: Waking?
        }

        /// A multi handle as another thread may use it: only to wake its wait
        /// (`curl_multi_wakeup`, which libcurl lets any thread call).
        private struct Waking: @unchecked Sendable {
            let multi: OpaquePointer
        }

        private let continuation: AsyncThrowingStream<DataTaskEvents.Event, any Error>.Continuation
        private let authority: String
        private let limits: TransferLimits
        private let userAgent: String
        private let state = Mutex(State())

        /// The most bytes of response headers read; more ends the transfer.
        static let headerLimit = 256 << 10
        /// The words for response headers past what keep (or libcurl, 100 KB a line) reads.
        static let headersTooLarge = "the server's response headers are larger than keep reads"

        private init(
            _ continuation: AsyncThrowingStream<DataTaskEvents.Event, any Error>.Continuation, authority: String,
            limits: TransferLimits, userAgent: String
        ) {
            self.continuation = continuation
            self.authority = authority
            self.limits = limits
            self.userAgent = userAgent
        }

        /// Starts `outgoing`, verified against the PEM certificates in the file `authority`
        /// alone, under `edge`'s rules and `limits`; the stream ends with the body, or throws
        /// ``CertificateRefusal``, ``DataTaskEvents/CleartextRefusal``,
        /// ``DataTaskEvents/LimitExceeded``, ``DataTaskEvents/TimeLimitReached``, a `URLError`
        /// (refused, not found, lost, silent) or ``TransferFailure/Described``.
        static func start(
            _ outgoing: OutgoingRequest, authority: String, edge: EdgePolicy, limits: TransferLimits
        ) -> AsyncThrowingStream<DataTaskEvents.Event, any Error> {
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: DataTaskEvents.Event.self)
            CurlTransfer(continuation, authority: authority, limits: limits, userAgent: edge.userAgent).launch(
                outgoing, edge: edge, limits: limits, continuation: continuation)
            return stream
        }

        var hasResponded: Bool { state.withLock(\.responded) }

        /// Runs the transfer on a thread of its own (a ``/KeepPorts/DedicatedThread``: libcurl
        /// blocks while it waits, for as long as the server takes), unless it was stopped first.
        /// The thread ends with the transfer; stopping it wakes libcurl's wait.
        func send(_ outgoing: OutgoingRequest, to address: String?) {
            guard !state.withLock(\.stopped) else { return }
            let thread = DedicatedThread(name: "keep.curl")
            Task(executorPreference: thread) {
                self.perform(outgoing, to: address)
                thread.stop()
            }
        }

        func stop(throwing error: (any Error)?) {
            state.withLock { state in
                state.stopped = true
                // Under the lock: the handle is not cleaned up while it is being woken.
                if let waking = state.multi { _ = curl_multi_wakeup(waking.multi) }
            }
            if let error { continuation.finish(throwing: error) }
        }

        /// Marks the response head as in.
        fileprivate func responded() {
            state.withLock { $0.responded = true }
        }

        fileprivate func yield(_ event: DataTaskEvents.Event) {
            continuation.yield(event)
        }

        /// The transfer, then the end of the stream, unless something stopped it (and so
        /// ended the stream) first.
        private func perform(_ outgoing: OutgoingRequest, to address: String?) {
            let failure = transfer(outgoing, to: address)
            guard !state.withLock(\.stopped) else { return }
            if let failure { continuation.finish(throwing: failure) } else { continuation.finish() }
        }

        /// `curl_global_init`, once for the process (libcurl's easy and multi calls need it
        /// done before them; FoundationNetworking calls it too, and a second call only counts).
        private static let started: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

        /// The whole transfer on this thread: `nil` when it ended well, else why not.
        private func transfer(_ outgoing: OutgoingRequest, to address: String?) -> (any Error)? {
            guard Self.started == CURLE_OK else { return Self.failed(Self.started) }
            guard let easy = curl_easy_init() else {
                return TransferFailure.Described(words: "libcurl could not start a transfer (curl_easy_init)")
            }
            defer { curl_easy_cleanup(easy) }
            let reception = Reception(self, url: outgoing.url, byteLimit: limits.bytes)
            // Declared before the handles, so freed after them: libcurl reads both lists
            // until the transfer is over.
            var headers = CurlList()
            defer { headers.free() }
            var pinned = CurlList()
            defer { pinned.free() }
            do throws(TransferFailure.Described) {
                try configure(easy, outgoing, to: address, reception, headers: &headers, pinned: &pinned)
            } catch {
                return error
            }
            guard let multi = curl_multi_init() else {
                return TransferFailure.Described(words: "libcurl could not start a transfer (curl_multi_init)")
            }
            defer { curl_multi_cleanup(multi) }
            let added = curl_multi_add_handle(multi, easy)
            guard added == CURLM_OK else { return Self.failed("curl_multi_add_handle", added) }
            defer { curl_multi_remove_handle(multi, easy) }
            let registered = state.withLock { state in
                guard !state.stopped else { return false }
                state.multi = Waking(multi: multi)
                return true
            }
            guard registered else { return nil }
            // Unregistered (under the lock) before the handle goes: stop never wakes a freed one.
            defer { state.withLock { $0.multi = nil } }
            if let failure = run(multi, reception) { return failure }
            var result = CURLE_OK
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                if message.pointee.msg == CURLMSG_DONE { result = message.pointee.data.result }
            }
            return failure(result, easy, reception)
        }

        /// Drives the transfer until libcurl is done with it, it is stopped, or the server has
        /// been silent for the idle limit; `nil` unless that limit or libcurl failed.
        private func run(_ multi: OpaquePointer, _ reception: Reception) -> (any Error)? {
            let idle = Duration.seconds(limits.idle)
            while true {
                var running: Int32 = 0
                let performed = curl_multi_perform(multi, &running)
                guard performed == CURLM_OK else { return Self.failed("curl_multi_perform", performed) }
                if running == 0 || state.withLock(\.stopped) { return nil }
                let silent = ContinuousClock.now - reception.lastHeard
                if silent >= idle { return URLError(.timedOut) }
                // Until the idle limit would pass; libcurl wakes sooner for its own timers, and
                // stop(throwing:) wakes it at once.
                let left = idle - silent
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                let polled = curl_multi_poll(multi, nil, 0, Int32(clamping: max(1, milliseconds)), nil)
                guard polled == CURLM_OK else { return Self.failed("curl_multi_poll", polled) }
            }
        }

        /// Every option of the transfer, each one checked as it is set.
        private func configure(
            _ easy: OpaquePointer, _ outgoing: OutgoingRequest, to address: String?, _ reception: Reception,
            headers: inout CurlList, pinned: inout CurlList
        ) throws(TransferFailure.Described) {
            func check(_ result: CURLcode, _ option: CURLoption) throws(TransferFailure.Described) {
                guard result == CURLE_OK else { throw Self.failed(result, setting: option) }
            }
            func set(_ option: CURLoption, _ value: Int) throws(TransferFailure.Described) {
                try check(keep_curl_set_long(easy, option, value), option)
            }
            func set(_ option: CURLoption, text value: String?) throws(TransferFailure.Described) {
                try check(keep_curl_set_text(easy, option, value), option)
            }
            try set(CURLOPT_URL, text: outgoing.url.absoluteString)
            try set(CURLOPT_PROTOCOLS_STR, text: "http,https")
            // Threads of keep's own: no signal for a resolver's timeout.
            try set(CURLOPT_NOSIGNAL, 1)
            // A redirect is the response, for the engine to decide on (RedirectPolicy).
            try set(CURLOPT_FOLLOWLOCATION, 0)
            try set(CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue))
            // No proxy, not even one the environment names: an empty name is libcurl's "none".
            try set(CURLOPT_PROXY, text: "")
            // The authority file alone: its certificates, no directory of others, verification on.
            try set(CURLOPT_CAINFO, text: authority)
            try set(CURLOPT_CAPATH, text: nil)
            try set(CURLOPT_SSL_VERIFYPEER, 1)
            try set(CURLOPT_SSL_VERIFYHOST, 2)
            try set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))

            for (name, value) in outgoing.headers.sorted(by: { $0.key < $1.key }) {
                try headers.append("\(name): \(value)")
            }
            try headers.append("User-Agent: \(userAgent)")
            // libcurl's own `Expect: 100-continue` for a large body, left out.
            try headers.append("Expect:")
            if let key = outgoing.key { try headers.appendKey(key, in: outgoing.keyHeader) }
            try check(keep_curl_set_list(easy, CURLOPT_HTTPHEADER, headers.list), CURLOPT_HTTPHEADER)
            if let address, let origin = ServerOrigin(outgoing.url) {
                let target = address.contains(":") ? "[\(address)]" : address
                try pinned.append("\(origin.host):\(origin.port):\(target)")
                try check(keep_curl_set_list(easy, CURLOPT_RESOLVE, pinned.list), CURLOPT_RESOLVE)
            }

            let method = outgoing.method.uppercased()
            if let body = outgoing.body {
                try check(
                    keep_curl_set_size(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)),
                    CURLOPT_POSTFIELDSIZE_LARGE)
                // Copied by libcurl, so the body need not outlive this call.
                let copied = body.withUnsafeBytes { bytes in
                    keep_curl_set_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
                try check(copied, CURLOPT_COPYPOSTFIELDS)
            } else if method == "GET" {
                try set(CURLOPT_HTTPGET, 1)
            }
            if method != "GET", method != "POST" { try set(CURLOPT_CUSTOMREQUEST, text: method) }

            let context = Unmanaged.passUnretained(reception).toOpaque()
            try check(keep_curl_set_receiver(easy, CURLOPT_HEADERFUNCTION, Reception.onHeader), CURLOPT_HEADERFUNCTION)
            try check(keep_curl_set_pointer(easy, CURLOPT_HEADERDATA, context), CURLOPT_HEADERDATA)
            try check(keep_curl_set_receiver(easy, CURLOPT_WRITEFUNCTION, Reception.onBody), CURLOPT_WRITEFUNCTION)
            try check(keep_curl_set_pointer(easy, CURLOPT_WRITEDATA, context), CURLOPT_WRITEDATA)
        }

        /// Why a transfer libcurl ended with `result` failed; `nil` for success.
        private func failure(_ result: CURLcode, _ easy: OpaquePointer, _ reception: Reception) -> (any Error)? {
            if let failure = reception.failure { return failure }
            switch result {
            case CURLE_OK: return nil
            case CURLE_PEER_FAILED_VERIFICATION:
                var verified = 0
                guard keep_curl_get_long(easy, CURLINFO_SSL_VERIFYRESULT, &verified) == CURLE_OK else {
                    return CertificateRefusal(.other(code: -1))
                }
                return CertificateRefusal(verifyResult: verified)
            case CURLE_SSL_CACERT_BADFILE: return CertificateRefusal(.unreadableAuthority)
            case CURLE_SSL_CONNECT_ERROR: return URLError(.secureConnectionFailed)
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return URLError(.cannotFindHost)
            case CURLE_COULDNT_CONNECT: return URLError(.cannotConnectToHost)
            case CURLE_OPERATION_TIMEDOUT: return URLError(.timedOut)
            case CURLE_GOT_NOTHING: return URLError(.zeroByteResource)
            case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE: return URLError(.networkConnectionLost)
            case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING: return URLError(.badServerResponse)
            case CURLE_UNSUPPORTED_PROTOCOL: return URLError(.unsupportedURL)
            case CURLE_URL_MALFORMAT: return URLError(.badURL)
            // libcurl's word for a response header past the 100 KB it reads.
            case CURLE_OUT_OF_MEMORY where !hasResponded: return TransferFailure.Described(words: Self.headersTooLarge)
            default: return Self.failed(result)
            }
        }

        /// libcurl's words for `result`: never a header, a key or a body.
        private static func failed(_ result: CURLcode) -> TransferFailure.Described {
            TransferFailure.Described(
                words: "the HTTP library (libcurl) failed: \(String(cString: curl_easy_strerror(result)))")
        }

        /// libcurl's words for `result` of setting `option` (by libcurl's number for it).
        private static func failed(_ result: CURLcode, setting option: CURLoption) -> TransferFailure.Described {
            TransferFailure.Described(
                words: "the HTTP library (libcurl) failed to set option \(option.rawValue) of a transfer: "
                    + String(cString: curl_easy_strerror(result)))
        }

        /// libcurl's words for `result` of the multi call `call`.
        private static func failed(_ call: String, _ result: CURLMcode) -> TransferFailure.Described {
            TransferFailure.Described(
                words: "the HTTP library (libcurl) failed in \(call): \(String(cString: curl_multi_strerror(result)))")
        }
    }

    // MARK: - What the callbacks see

    /// What libcurl's callbacks of one transfer read and write, on the transfer's thread
    /// alone: the response head being read, the body's size so far, when the server last
    /// sent a byte, and a failure a callback found.
    private final class Reception {
        let transfer: CurlTransfer
        let url: URL
        let byteLimit: Int
        /// The head's lines so far, the status line first.
        var lines: [String] = []
        var headerBytes = 0
        var received = 0
        var responded = false
        var lastHeard = ContinuousClock.now
        var failure: (any Error)?

        init(_ transfer: CurlTransfer, url: URL, byteLimit: Int) {
            self.transfer = transfer
            self.url = url
            self.byteLimit = byteLimit
        }

        /// `CURLOPT_HEADERFUNCTION`: one header line, the status line and the blank line too.
        static let onHeader: keep_curl_receiver = { bytes, size, count, context in
            guard let bytes, let context else { return 0 }
            let reception = Unmanaged<Reception>.fromOpaque(context).takeUnretainedValue()
            return reception.header(UnsafeRawBufferPointer(start: bytes, count: size * count)) ? size * count : 0
        }

        /// `CURLOPT_WRITEFUNCTION`: a piece of the body.
        static let onBody: keep_curl_receiver = { bytes, size, count, context in
            guard let bytes, let context else { return 0 }
            let reception = Unmanaged<Reception>.fromOpaque(context).takeUnretainedValue()
            return reception.body(UnsafeRawBufferPointer(start: bytes, count: size * count)) ? size * count : 0
        }

        /// Reads one line of the head; at its blank line, yields the response (an interim
        /// `1xx` one is dropped). `false` ends the transfer.
        func header(_ bytes: UnsafeRawBufferPointer) -> Bool {
            lastHeard = .now
            // Trailers after the body are not the head.
            guard !responded else { return true }
            headerBytes += bytes.count
            guard headerBytes <= CurlTransfer.headerLimit else {
                failure = TransferFailure.Described(words: CurlTransfer.headersTooLarge)
                return false
            }
            let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
            guard line.isEmpty else {
                lines.append(line)
                return true
            }
            let status = lines.first?.split(separator: " ", maxSplits: 2)
            guard let status, status.count >= 2, status[0].hasPrefix("HTTP/"), let code = Int(status[1]),
                (100...999).contains(code)
            else {
                failure = URLError(.badServerResponse)
                return false
            }
            if (100..<200).contains(code) {
                lines = []
                headerBytes = 0
                return true
            }
            var fields: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
                let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                fields[name] = fields[name].map { $0 + ", " + value } ?? value
            }
            guard
                let response = HTTPURLResponse(
                    url: url, statusCode: code, httpVersion: String(status[0]), headerFields: fields)
            else {
                failure = URLError(.badServerResponse)
                return false
            }
            responded = true
            lines = []
            transfer.responded()
            transfer.yield(.response(response))
            return true
        }

        /// Hands on a piece of the body, unless it takes the body past the byte limit (the
        /// transfer stopped there). `false` ends the transfer.
        func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
            lastHeard = .now
            received += bytes.count
            guard received <= byteLimit else {
                transfer.stop(throwing: DataTaskEvents.LimitExceeded(limit: byteLimit))
                return false
            }
            transfer.yield(.data(Data(bytes)))
            return true
        }
    }

    // MARK: - libcurl's lists

    /// A `curl_slist` of lines (headers, pinned addresses) libcurl reads during a transfer;
    /// every line is overwritten with zeros before the list is freed, the key's header with it.
    private struct CurlList {
        private(set) var list: UnsafeMutablePointer<curl_slist>?

        /// Appends `line` (libcurl copies it).
        mutating func append(_ line: String) throws(TransferFailure.Described) {
            guard let grown = curl_slist_append(list, line) else {
                throw TransferFailure.Described(words: "libcurl could not make a header (curl_slist_append)")
            }
            list = grown
        }

        /// Appends `name: <prefix><key>`, built from the key's bytes in memory of its own,
        /// which is wiped as soon as libcurl has its copy.
        mutating func appendKey(_ key: APIKey, in header: OutgoingRequest.KeyHeader) throws(TransferFailure.Described) {
            let head = Array("\(header.name): \(header.prefix)".utf8)
            let line = UnsafeMutableRawBufferPointer.allocate(byteCount: head.count + key.count + 1, alignment: 1)
            defer {
                APIKey.wipe(line)
                line.deallocate()
            }
            line.copyBytes(from: head)
            key.withBytes { UnsafeMutableRawBufferPointer(rebasing: line[head.count...]).copyBytes(from: $0) }
            line[head.count + key.count] = 0
            guard let grown = curl_slist_append(list, line.baseAddress?.assumingMemoryBound(to: CChar.self)) else {
                throw TransferFailure.Described(words: "libcurl could not make a header (curl_slist_append)")
            }
            list = grown
        }

        /// Overwrites every line with zeros, then frees the list.
        mutating func free() {
            var node = list
            while let current = node {
                if let data = current.pointee.data {
                    APIKey.wipe(UnsafeMutableRawBufferPointer(start: data, count: strlen(data)))
                }
                node = current.pointee.next
            }
            curl_slist_free_all(list)
            list = nil
        }
    }
#endif
