import Foundation
import KeepCore
import KeepPorts

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engine that asks a server (``server``) in the protocol it speaks: OpenAI chat
/// completions (`POST {url}/chat/completions`), Anthropic Messages (`POST {url}/messages`)
/// or Gemini (`POST {url}/models/{model}:streamGenerateContent?alt=sse`), with the
/// conversation, the model and the temperature, streamed, the answer printed as its
/// server-sent events arrive. What differs between the three is a small wire type
/// (``ServerWire``: the URL, the key's header, the body, the events); the transfer and every
/// rule below are this engine's, the same for all of them.
///
/// The key is read through `readKey` (the keychain ref the server names) once per request,
/// and goes into the protocol's header only (`Authorization: Bearer`, `x-api-key`,
/// `x-goog-api-key`; never the URL). With no key, or an empty one, the request has no key
/// header at all: a local server (llama.cpp, Ollama, vLLM) needs none, and `Bearer ` with
/// nothing after it is never sent.
///
/// Every failure is one ``EngineError`` line: 401/403 say the server wants a key (or
/// refused the one sent), with storing one as the remedy; another HTTP error
/// gives the status and the server's own message when it sent JSON; a refused
/// connection, an unknown host, a silence longer than `idleTimeout`, response headers
/// not over within `idleTimeout` and an answer not over within `answerTimeout` each say
/// so. Cancelling the calling task cancels the request. A server that ignores `stream` and
/// answers one JSON completion is understood too.
///
/// At the edge (`docs/keep-guide.md`, "What keep sends, and where"): a key is never sent over plain http
/// to a host that is not this machine unless `keyOverHttpHosts` names it (``CleartextRule``,
/// checked by the transport before connecting, for every request); a redirect is never
/// followed by the transport, and by the engine only as ``RedirectPolicy`` allows (same
/// origin, 307 or 308, the request resent whole); the key is hidden in the answer before it
/// is shown or kept (``KeyRedactor``, even split across pieces) and in every server text it
/// quotes; the key is held as bytes (``APIKey``), its header built only when the request
/// is sent; an answer longer than `answerLimit` bytes ends the turn, the transfer cancelled
/// where it arrives; a successful answer that is not one of the protocol's is named as such.
/// A server with an authority of its own (`keep servers add --ca FILE`) is asked over https
/// alone, through libcurl, verified against that file alone (``Transport``); a certificate
/// refused so is ``EngineError/Code/untrusted``, nothing sent.
package struct RemoteEngine: ChatEngine {
    /// The value of the `engineId` setting that chooses it: `remote`.
    package static let engineId = "remote"

    package var id: String { Self.engineId }
    /// The server asked: its name, address, protocol, key ref, model and budget.
    package let server: ServerProfile
    /// The server's base URL, such as `http://127.0.0.1:8080/v1`.
    package var baseURL: String { server.url }
    /// Where a model's context window is learned when the server's `contextTokens` gives no
    /// budget (kept data, asked again when old); `nil`: nowhere, no budget.
    package var windows: (any ContextWindowSource)?
    /// The most a request may carry without a budget (``ContextBudget/unbudgetedLimit``).
    package let unbudgetedLimit: Int?
    /// The model asked when a question names none (the server's own).
    package var model: String { server.model }
    /// The temperature sent, 0 to 2 (the `temperature` setting, or the turn's own).
    package let temperature: Double
    /// Where the key comes from, to name in a message; never the key itself.
    package var keyRef: SecretRef { server.key }
    /// How long the server may stay silent, before its first byte or between two; also
    /// how long its response headers may take, however it trickles them.
    package let idleTimeout: TimeInterval
    /// How long the whole answer may take (the `answerTimeoutSeconds` setting).
    package let answerTimeout: TimeInterval
    /// What every request obeys and carries: the hosts allowed a key over plain http, the User-Agent.
    package let edge: EdgePolicy
    /// The most bytes an answer may take on the wire; more ends the turn.
    package let answerLimit: Int
    private let readKey: @Sendable () async throws(EngineError) -> APIKey?
    /// Why no key could be read for this run (no keyring answers), when that is so: a 401
    /// or 403 to a request without a key then says so, rather than advising to store one.
    package var keyUnreadable: String?

    /// The default ``answerLimit``: 8 MiB, far more than any chat answer.
    package static let defaultAnswerLimit = 8 << 20
    /// The default ``answerTimeout``: ten minutes.
    package static let defaultAnswerTimeout: TimeInterval = 600
    /// How many same-origin redirects (307, 308) one request follows.
    static let redirectLimit = 5

    /// The engine for an OpenAI-compatible server at `baseURL`, called `default`. `readKey`
    /// is called once per request and answers the key, or `nil` for none; nothing is sent
    /// until ``answer(to:options:receive:)``.
    package init(
        baseURL: String, model: String, temperature: Double, keyRef: SecretRef, idleTimeout: TimeInterval = 300,
        answerTimeout: TimeInterval = defaultAnswerTimeout, edge: EdgePolicy = EdgePolicy(userAgent: "keep"),
        answerLimit: Int = defaultAnswerLimit,
        readKey: @escaping @Sendable () async throws(EngineError) -> APIKey?
    ) {
        self.init(
            server: ServerProfile(name: "default", url: baseURL, key: keyRef, model: model), temperature: temperature,
            idleTimeout: idleTimeout, answerTimeout: answerTimeout, edge: edge, answerLimit: answerLimit,
            readKey: readKey)
    }

    /// The engine for `server`. `readKey` is called once per request and answers the key, or
    /// `nil` for none; nothing is sent until ``answer(to:options:receive:)``.
    package init(
        server: ServerProfile, temperature: Double, idleTimeout: TimeInterval = 300,
        answerTimeout: TimeInterval = defaultAnswerTimeout, edge: EdgePolicy = EdgePolicy(userAgent: "keep"),
        answerLimit: Int = defaultAnswerLimit, unbudgetedLimit: Int = ContextBudget.unbudgetedLimit,
        readKey: @escaping @Sendable () async throws(EngineError) -> APIKey?
    ) {
        self.server = server
        self.unbudgetedLimit = unbudgetedLimit
        self.temperature = temperature
        self.idleTimeout = idleTimeout
        self.answerTimeout = answerTimeout
        self.edge = edge
        self.answerLimit = answerLimit
        self.readKey = readKey
    }

    /// The server (its name, at ``displayURL``), its model and the key in ``keyRef``.
    package var endpoint: EngineEndpoint? {
        EngineEndpoint(name: server.name, server: displayURL, model: model, keyRef: keyRef)
    }

    /// The budget of a request for `model` (else the server's own): the server's
    /// `contextTokens` when it has one (an explicit setting always wins); else, for a
    /// conversation of more than ``ContextBudget/fitsAnyModel`` tokens by its `estimate`, the
    /// window ``windows`` knows or learns from the server's model list
    /// (``ContextWindowQuery``); else none. A short conversation never asks the server more
    /// than its question.
    package func contextBudget(model: String?, estimate: Int) async -> ContextBudget.Limit {
        if let tokens = server.contextTokens { return ContextBudget.Limit(tokens: tokens, source: .setting) }
        guard estimate > ContextBudget.fitsAnyModel, let windows,
            let query = ContextWindowQuery(wire: server.wire, server: baseURL, model: model ?? self.model),
            let window = await windows.window(query, authority: server.authority, edge: edge, readKey: readKey)
        else { return .none }
        return ContextBudget.Limit(tokens: window.tokens, source: .modelList, readAt: window.readAt)
    }

    /// The answer from the model `options` names (else the `model` setting's), with the
    /// server's token count when it sent one.
    package func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply {
        let key = try await readKey()
        let asked = options.model ?? model
        let images = conversation.contains { !$0.attachments.isEmpty }
        func makeRequest(askUsage: Bool) throws(EngineError) -> OutgoingRequest {
            try Self.request(
                baseURL: baseURL, model: asked, temperature: options.temperature ?? temperature,
                conversation: conversation, apiKey: key, keyRef: keyRef, maxTokens: options.maxTokens,
                askUsage: askUsage && server.wire == .openai, wire: server.wire)
        }
        var request = try makeRequest(askUsage: true)
        var askingUsage = true
        for _ in 0...Self.redirectLimit {
            do {
                switch try await exchange(request, key: key, model: asked, receive: receive) {
                case .answer(let text, let usage):
                    return EngineReply(
                        text: text, model: asked, server: displayURL, usage: usage, serverName: server.name)
                case .redirect(let url):
                    // Same origin, 307 or 308: the same method, headers and body, sent again.
                    request.url = url
                }
            } catch let error as EngineError where askingUsage && Self.refusesUsage(error) {
                // A server that knows no `stream_options` (some hosted APIs refuse any field
                // they do not know) answers the same question without: no usage, no failure.
                askingUsage = false
                let url = request.url
                request = try makeRequest(askUsage: false)
                request.url = url
            } catch let error as EngineError where images && Self.refusesImages(error) {
                throw EngineError(
                    .http, status: error.status,
                    "the server at \(displayURL) did not take the image (\(error.message)); "
                        + "ask without -a, or a server whose model reads images")
            } catch let error as EngineError {
                throw error
            } catch {
                if Task.isCancelled { throw .cancelled }
                throw failure(error)
            }
        }
        throw EngineError(
            .redirected,
            "the server at \(displayURL) redirected the request more than \(Self.redirectLimit) times; gave up")
    }

    /// How one exchange ended: an answer (with the server's token count, when one came),
    /// or a redirect to follow.
    private enum Outcome {
        case answer(String, TokenUsage?)
        case redirect(URL)
    }

    /// The request for `conversation` in the protocol `wire`: the URL, the JSON body and the
    /// headers, carrying the key (in the protocol's header, built when it is sent) only when
    /// there is one.
    ///
    /// Throws ``EngineError/Code/configuration`` for a base URL that is not an http(s)
    /// URL, and for a key holding a line break or another control character, which would
    /// end the header early (the message names the slot, never the key).
    package static func request(
        baseURL: String, model: String, temperature: Double, conversation: [ChatMessage], apiKey: APIKey?,
        keyRef: SecretRef, maxTokens: Int? = nil, askUsage: Bool = true, wire protocolName: ServerProtocol = .openai
    ) throws(EngineError) -> OutgoingRequest {
        let wire = protocolName.wire
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        guard let url = URL(string: base + wire.suffix(model: model)),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else {
            throw EngineError(
                .configuration, "baseUrl \(StorageError.quoted(baseURL)) is not an http:// or https:// URL")
        }
        var request = OutgoingRequest(
            "POST", url,
            headers: ["Content-Type": "application/json", "Accept": "text/event-stream"].merging(
                wire.headers, uniquingKeysWith: { first, _ in first }), keyHeader: wire.keyHeader)
        if let apiKey {
            guard !apiKey.holdsControlCharacter else {
                throw EngineError(
                    .configuration, "the API key in \(keyRef) holds a line break or another control character",
                    remedy: .replaceKey(keyRef))
            }
            request.key = apiKey
        }
        do {
            request.body = try wire.body(
                WirePrompt(
                    model: model, conversation: conversation, temperature: temperature, maxTokens: maxTokens,
                    askUsage: askUsage))
        } catch {
            throw EngineError(.configuration, "the request could not be encoded as JSON")
        }
        return request
    }

    /// Sends `request` and reads the answer as it arrives, with the server's token count
    /// when one came; answers a redirect the policy lets it follow rather than following it
    /// (the transport never follows one).
    private func exchange(
        _ request: OutgoingRequest, key: APIKey?, model: String, receive: @escaping @Sendable (String) -> Void
    ) async throws -> Outcome {
        let wire = server.wire.wire
        var promptTokens: Int?
        var completionTokens: Int?
        var usage: TokenUsage? {
            guard let promptTokens, let completionTokens else { return nil }
            return TokenUsage(promptTokens: promptTokens, completionTokens: completionTokens)
        }
        var response: HTTPURLResponse?
        var parser = ServerSentEventParser()
        var body = Data()  // an error body, or a whole JSON answer
        var answer = ""
        var complete = false
        var bytesRead = 0
        // The key hidden in the answer before it is shown or kept, even split across chunks.
        var redactor = KeyRedactor(hiding: key)
        // Bounded whatever the server sends: an endless stream ends the turn at the limit,
        // a slow one at the time limits.
        let events = Transport.start(
            request, authority: server.authority, edge: edge,
            limits: TransferLimits(idle: idleTimeout, headers: idleTimeout, total: answerTimeout, bytes: answerLimit))
        var eventCount = 0
        reading: for try await event in events {
            switch event {
            case .response(let received):
                if let decision = RedirectPolicy.decide(
                    from: request.url, method: request.method, status: received.statusCode,
                    location: received.value(forHTTPHeaderField: "Location"))
                {
                    switch decision {
                    case .follow(let target): return .redirect(target)
                    case .refuse(let refusal):
                        throw EngineError(
                            .redirected,
                            refusal.message(server: displayURL, suffix: wire.suffix(model: model), hidingKey: key),
                            remedy: refusal.suggestedBase(suffix: wire.suffix(model: model), hidingKey: key).map {
                                .pointBaseURL($0)
                            })
                    }
                }
                if Self.isSuccess(received), let kind = Self.notAnEventStream(received) {
                    throw EngineError(
                        .badResponse,
                        "the server at \(displayURL) answered \(kind), not \(Self.answerName(server.wire)); "
                            + "is its URL the API's base, such as http://host:port/v1?")
                }
                response = received
            case .data(let data):
                bytesRead += data.count
                guard let response, Self.isSuccess(response), Self.isEventStream(response) else {
                    // An error message or a whole JSON answer: kept, within reason, to read at the end.
                    if body.count < Self.bodyLimit { body.append(data) }
                    continue
                }
                for event in parser.feed(data) {
                    eventCount += 1
                    let chunk = try decode(event, wire: wire, key: key)
                    promptTokens = chunk.promptTokens ?? promptTokens
                    completionTokens = chunk.completionTokens ?? completionTokens
                    let shown = redactor.feed(chunk.text)
                    answer += shown
                    if !shown.isEmpty { receive(shown) }
                    if chunk.isFinal { complete = true }
                    if chunk.isEnd { break reading }
                }
            }
        }
        // What was held back as the key's possible start was not the key: it is the answer's.
        let rest = redactor.finish()
        answer += rest
        if !rest.isEmpty { receive(rest) }
        // Cancelled before the end: not an answer. (An answer that was complete is kept.)
        if Task.isCancelled, !complete { throw EngineError.cancelled }
        guard let response else {
            throw EngineError(.badResponse, "the server at \(displayURL) closed the connection without answering")
        }
        guard Self.isSuccess(response) else {
            throw httpFailure(response.statusCode, message: wire.errorMessage(body), key: key)
        }
        if !Self.isEventStream(response) {
            guard let whole = wire.whole(body) else {
                if let message = wire.errorMessage(body) {
                    throw EngineError(
                        .http, "the server at \(displayURL) reported an error: \(Self.oneLine(message, hiding: key))")
                }
                throw EngineError(.badResponse, "the server at \(displayURL) answered JSON that holds no answer")
            }
            let text = KeyRedactor.hiding(key, in: whole.text)
            receive(text)
            promptTokens = whole.promptTokens
            completionTokens = whole.completionTokens
            return .answer(text, usage)
        }
        guard complete else {
            if eventCount == 0, bytesRead > 0 {
                let type = response.value(forHTTPHeaderField: "Content-Type").map { " (\($0))" } ?? ""
                throw EngineError(
                    .badResponse,
                    "the server at \(displayURL) answered something that is not an event stream\(type), "
                        + "not \(Self.answerName(server.wire))")
            }
            throw EngineError(
                .badResponse, "the server at \(displayURL) ended the stream before the answer was complete")
        }
        return .answer(answer, usage)
    }

    /// Whether `error` is a server refusing `stream_options` (HTTP 400 or 422 naming it),
    /// before any of the answer came.
    static func refusesUsage(_ error: EngineError) -> Bool {
        error.code == .http && (error.status == 400 || error.status == 422)
            && error.message.contains("stream_options")
    }

    /// One event as a chunk, or the error it reports.
    private func decode(
        _ event: ServerSentEventParser.Event, wire: any ServerWire, key: APIKey?
    ) throws(EngineError) -> WireChunk {
        do throws(WireFailure) {
            return try wire.chunk(event)
        } catch {
            switch error {
            case .reported(let message):
                let said = message.map { ": " + Self.oneLine($0, hiding: key) } ?? ""
                throw EngineError(.http, "the server at \(displayURL) reported an error\(said)")
            case .notThisProtocol:
                throw EngineError(
                    .badResponse,
                    "the server at \(displayURL) sent something that is not \(Self.answerName(server.wire))")
            }
        }
    }

    /// What an answer of `wire` is called in a message: `a chat completion`.
    private static func answerName(_ wire: ServerProtocol) -> String {
        switch wire {
        case .openai: "a chat completion"
        case .anthropic: "an Anthropic message"
        case .gemini: "a Gemini answer"
        }
    }

    /// Whether `error` is a server refusing a request for its image: a 400, 413, 415 or 422
    /// (a request with images and nothing else wrong with it).
    static func refusesImages(_ error: EngineError) -> Bool {
        error.code == .http && [400, 413, 415, 422].contains(error.status ?? 0)
    }

    /// The line for an HTTP error status, with the server's message when it sent one.
    private func httpFailure(_ status: Int, message: String?, key: APIKey?) -> EngineError {
        let message = message.map { Self.oneLine($0, hiding: key) }
        let said = "HTTP \(status)" + (message.map { ": " + $0 } ?? "")
        if status == 401 || status == 403 {
            if key != nil {
                return EngineError(
                    .unauthorized, status: status,
                    "the server at \(displayURL) refused the API key in \(keyRef) (\(said))",
                    remedy: .replaceKey(keyRef))
            }
            if let keyUnreadable {
                return EngineError(
                    .unauthorized, status: status,
                    "the server at \(displayURL) wants an API key (\(said)); "
                        + "the key in \(keyRef) could not be read: \(keyUnreadable)")
            }
            return EngineError(
                .unauthorized, status: status, "the server at \(displayURL) wants an API key (\(said))",
                remedy: .storeKey(keyRef))
        }
        let reason = message == nil ? " " + HTTPURLResponse.localizedString(forStatusCode: status) : ""
        return EngineError(.http, status: status, "the server at \(displayURL) answered \(said)\(reason)")
    }

    /// The line for a transfer that failed before an answer came.
    private func failure(_ error: any Error) -> EngineError {
        switch error {
        case let refusal as DataTaskEvents.CleartextRefusal:
            return EngineError(
                .cleartext,
                CleartextRule.refusal(host: refusal.host, detail: refusal.detail, keyRef: keyRef.description),
                remedy: .keyOverPlainHTTP(keyRef, host: refusal.host))
        case let refusal as CertificateRefusal:
            let said = refusal.message(
                server: displayURL, host: URL(string: baseURL)?.host ?? baseURL, authority: server.authority ?? "")
            // What this build cannot do is no fault of the certificate's.
            guard refusal.reason != .unverifiable else {
                return EngineError(.configuration, said, remedy: .useSystemAuthorities(server: server.name))
            }
            return EngineError(.untrusted, said)
        case is DataTaskEvents.LimitExceeded:
            return EngineError(
                .tooLarge,
                "the answer from \(displayURL) passed \(Self.sizeText(answerLimit)) (the answerLimitMiB setting); "
                    + "stopped reading it")
        case let limit as DataTaskEvents.TimeLimitReached where limit.part == .headers:
            return EngineError(
                .timeout,
                "the server at \(displayURL) did not finish its response headers within "
                    + "\(Self.secondsText(limit.seconds)); gave up")
        case let limit as DataTaskEvents.TimeLimitReached:
            return EngineError(
                .timeout,
                "the answer from \(displayURL) took longer than \(Self.secondsText(limit.seconds)) (the "
                    + "answerTimeoutSeconds setting); stopped waiting")
        case is CancellationError:
            return .cancelled
        case let error as URLError where error.code == .cancelled:
            return .cancelled
        case let error as URLError where error.code == .timedOut:
            return EngineError(
                .timeout, "the server at \(displayURL) did not answer for \(Int(idleTimeout)) seconds; gave up")
        case let error as URLError where error.code == .cannotConnectToHost:
            return EngineError(.connection, "cannot connect to \(displayURL) (is the server running?)")
        case let error as URLError where error.code == .cannotFindHost || error.code == .dnsLookupFailed:
            return EngineError(.connection, "cannot find the host of \(displayURL)")
        case let error as URLError where error.code == .networkConnectionLost:
            return EngineError(
                .connection, "the connection to \(displayURL) was lost before the answer was complete")
        default:
            return EngineError(.connection, "the request to \(displayURL) failed: \(TransferFailure.words(error))")
        }
    }

    /// The base URL without any user name or password in it, for messages.
    package var displayURL: String {
        guard var parts = URLComponents(string: baseURL), parts.user != nil || parts.password != nil else {
            return baseURL
        }
        parts.user = nil
        parts.password = nil
        return parts.string ?? baseURL
    }

    /// A server's message on one line, at most 300 characters, with the key hidden.
    static func oneLine(_ message: String, hiding key: APIKey?) -> String {
        var text = ServerText.hidingKey(message, key)
        text = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.count > 300 ? String(text.prefix(299)) + "…" : text
    }

    /// `1 second`, `600 seconds`.
    static func secondsText(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        return whole == 1 ? "1 second" : "\(whole) seconds"
    }

    /// How much of an error body or a whole JSON answer is kept: more is not a chat answer.
    private static let bodyLimit = 4 << 20

    private static func isSuccess(_ response: HTTPURLResponse) -> Bool {
        (200..<300).contains(response.statusCode)
    }

    /// `8 MiB`, or bytes below one MiB.
    static func sizeText(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    /// What a successful answer is when it is plainly not a chat completion (a web page, an
    /// image), named for the user; `nil` for anything that may be one.
    private static func notAnEventStream(_ response: HTTPURLResponse) -> String? {
        let type = response.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
        if type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") { return "a web page (\(type))" }
        for prefix in ["image/", "audio/", "video/", "font/", "application/pdf", "application/octet-stream"]
        where type.hasPrefix(prefix) {
            return "a file of type \(type)"
        }
        return nil
    }

    /// Whether the body is server-sent events: a JSON content type is a whole answer,
    /// anything else is read as events (some servers label them loosely).
    private static func isEventStream(_ response: HTTPURLResponse) -> Bool {
        let type = response.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
        return !type.hasPrefix("application/json")
    }
}
