import Foundation
import KeepCore
import KeepPorts

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engine that asks an OpenAI-compatible server: `POST {baseURL}/chat/completions` with
/// the conversation, the model and the temperature, `stream: true`, the answer printed as
/// its server-sent events arrive.
///
/// The key is read through `readKey` (the keychain ref the `keySlot` and `keyAccount`
/// settings name) once per request, and goes into the `Authorization` header only. With
/// no key, or an empty one, the request has no `Authorization` header at all: a local
/// server (llama.cpp, Ollama, vLLM) needs none, and `Bearer ` with nothing after it is
/// never sent.
///
/// Every failure is one ``EngineError`` line: 401/403 say the server wants a key (or
/// refused the one sent) and how to store one (`keep key set SLOT`); another HTTP error
/// gives the status and the server's own message when it sent JSON; a refused
/// connection, an unknown host and a silence longer than `idleTimeout` each say so.
/// Cancelling the calling task cancels the request. A server that ignores `stream` and
/// answers one JSON completion is understood too.
public struct RemoteEngine: ChatEngine {
    public static let engineId = "remote"

    public var id: String { Self.engineId }
    /// The server's base URL, such as `http://127.0.0.1:8080/v1`.
    public let baseURL: String
    public let model: String
    public let temperature: Double
    /// Where the key comes from, to name in a message; never the key itself.
    public let keyRef: SecretRef
    /// How long the server may stay silent, before its first byte or between two.
    public let idleTimeout: TimeInterval
    private let readKey: @Sendable () async throws(EngineError) -> String?

    public init(
        baseURL: String, model: String, temperature: Double, keyRef: SecretRef, idleTimeout: TimeInterval = 300,
        readKey: @escaping @Sendable () async throws(EngineError) -> String?
    ) {
        self.baseURL = baseURL
        self.model = model
        self.temperature = temperature
        self.keyRef = keyRef
        self.idleTimeout = idleTimeout
        self.readKey = readKey
    }

    public func reply(
        to conversation: [ChatMessage], receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> String {
        try await answer(to: conversation, options: EngineOptions(), receive: receive).text
    }

    /// The answer from the model `options` names (else the `model` setting's), with the
    /// server's token count when it sent one.
    public func answer(
        to conversation: [ChatMessage], options: EngineOptions, receive: @escaping @Sendable (String) -> Void
    ) async throws(EngineError) -> EngineReply {
        let key = try await readKey()
        let asked = options.model ?? model
        func request(askUsage: Bool) throws(EngineError) -> URLRequest {
            try Self.request(
                baseURL: baseURL, model: asked, temperature: options.temperature ?? temperature,
                conversation: conversation, apiKey: key, keyRef: keyRef, maxTokens: options.maxTokens,
                askUsage: askUsage)
        }
        do {
            let (text, usage): (String, TokenUsage?)
            do {
                (text, usage) = try await exchange(try request(askUsage: true), key: key, receive: receive)
            } catch let error as EngineError where Self.refusesUsage(error) {
                // A server that knows no `stream_options` (some hosted APIs refuse any field
                // they do not know) answers the same question without: no usage, no failure.
                (text, usage) = try await exchange(try request(askUsage: false), key: key, receive: receive)
            }
            return EngineReply(text: text, model: asked, server: displayURL, usage: usage)
        } catch let error as EngineError {
            throw error
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw failure(error)
        }
    }

    /// The request for `conversation`: the URL, the JSON body and the headers, with an
    /// `Authorization` header only for a non-empty key.
    ///
    /// Throws ``EngineError/Code/configuration`` for a base URL that is not an http(s)
    /// URL, and for a key holding a line break or another control character, which would
    /// end the header early (the message names the slot, never the key).
    public static func request(
        baseURL: String, model: String, temperature: Double, conversation: [ChatMessage], apiKey: String?,
        keyRef: SecretRef, maxTokens: Int? = nil, askUsage: Bool = true
    ) throws(EngineError) -> URLRequest {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        guard let url = URL(string: base + "/chat/completions"),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else {
            throw EngineError(
                .configuration, "baseUrl \(StorageError.quoted(baseURL)) is not an http:// or https:// URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let apiKey, !apiKey.isEmpty {
            guard !apiKey.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw EngineError(
                    .configuration,
                    "the API key in \(keyRef) holds a line break or another control character; "
                        + "store it again with \(keySetCommand(keyRef))")
            }
            request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        do {
            request.httpBody = try ChatCompletionsWire.Request(
                model: model, conversation: conversation, temperature: temperature, maxTokens: maxTokens,
                askUsage: askUsage
            ).encoded()
        } catch {
            throw EngineError(.configuration, "the request could not be encoded as JSON")
        }
        return request
    }

    /// Sends `request` and reads the answer as it arrives; answers it with the server's
    /// token count, when one came.
    private func exchange(
        _ request: URLRequest, key: String?, receive: @escaping @Sendable (String) -> Void
    ) async throws -> (String, TokenUsage?) {
        var usage: TokenUsage?
        var response: HTTPURLResponse?
        var parser = ServerSentEventParser()
        var body = Data()  // an error body, or a whole JSON answer
        var answer = ""
        var complete = false
        reading: for try await event in DataTaskEvents.start(request, idleTimeout: idleTimeout) {
            switch event {
            case .response(let received):
                response = received
            case .data(let data):
                guard let response, Self.isSuccess(response), Self.isEventStream(response) else {
                    // An error message or a whole JSON answer: kept, within reason, to read at the end.
                    if body.count < Self.bodyLimit { body.append(data) }
                    continue
                }
                for event in parser.feed(data) {
                    if event.data == "[DONE]" {
                        complete = true
                        break reading
                    }
                    let chunk = try decode(event.data, key: key)
                    if let counted = chunk.usage?.tokens { usage = counted }
                    answer += chunk.text
                    if !chunk.text.isEmpty { receive(chunk.text) }
                    if chunk.isFinal { complete = true }
                }
            }
        }
        // Cancelled before the end: not an answer. (An answer that was complete is kept.)
        if Task.isCancelled, !complete { throw EngineError.cancelled }
        guard let response else {
            throw EngineError(.badResponse, "the server at \(displayURL) closed the connection without answering")
        }
        guard Self.isSuccess(response) else { throw httpFailure(response.statusCode, body: body, key: key) }
        if !Self.isEventStream(response) {
            let chunk = try decode(String(decoding: body, as: UTF8.self), key: key)
            guard chunk.choices?.isEmpty == false else {
                throw EngineError(.badResponse, "the server at \(displayURL) answered JSON that holds no answer")
            }
            receive(chunk.text)
            return (chunk.text, chunk.usage?.tokens)
        }
        guard complete else {
            throw EngineError(
                .badResponse, "the server at \(displayURL) ended the stream before the answer was complete")
        }
        return (answer, usage)
    }

    /// Whether `error` is a server refusing `stream_options` (HTTP 400 or 422 naming it),
    /// before any of the answer came.
    static func refusesUsage(_ error: EngineError) -> Bool {
        error.code == .http && (error.status == 400 || error.status == 422)
            && error.message.contains("stream_options")
    }

    /// One event's data as a chunk, or the error it reports.
    private func decode(_ data: String, key: String?) throws(EngineError) -> ChatCompletionsWire.Chunk {
        let chunk: ChatCompletionsWire.Chunk
        do {
            chunk = try JSONDecoder().decode(ChatCompletionsWire.Chunk.self, from: Data(data.utf8))
        } catch {
            throw EngineError(
                .badResponse, "the server at \(displayURL) sent something that is not a chat completion")
        }
        if let error = chunk.error {
            let said = error.message.map { ": " + Self.oneLine($0, hiding: key) } ?? ""
            throw EngineError(.http, "the server at \(displayURL) reported an error\(said)")
        }
        return chunk
    }

    /// The line for an HTTP error status, with the server's message when it sent one.
    private func httpFailure(_ status: Int, body: Data, key: String?) -> EngineError {
        let message = ChatCompletionsWire.ErrorBody.message(in: body).map { Self.oneLine($0, hiding: key) }
        let said = "HTTP \(status)" + (message.map { ": " + $0 } ?? "")
        if status == 401 || status == 403 {
            let sent = key != nil
            return EngineError(
                .unauthorized, status: status,
                sent
                    ? "the server at \(displayURL) refused the API key in \(keyRef) (\(said)); "
                        + "store the right one with \(Self.keySetCommand(keyRef))"
                    : "the server at \(displayURL) wants an API key (\(said)); "
                        + "store one with \(Self.keySetCommand(keyRef))")
        }
        let reason = message == nil ? " " + HTTPURLResponse.localizedString(forStatusCode: status) : ""
        return EngineError(.http, status: status, "the server at \(displayURL) answered \(said)\(reason)")
    }

    /// The line for a transfer that failed before an answer came.
    private func failure(_ error: any Error) -> EngineError {
        guard let error = error as? URLError else {
            if error is CancellationError { return .cancelled }
            return EngineError(.connection, "the request to \(displayURL) failed: \(error.localizedDescription)")
        }
        switch error.code {
        case .cancelled:
            return .cancelled
        case .timedOut:
            return EngineError(
                .timeout, "the server at \(displayURL) did not answer for \(Int(idleTimeout)) seconds; gave up")
        case .cannotConnectToHost:
            return EngineError(.connection, "cannot connect to \(displayURL) (is the server running?)")
        case .cannotFindHost, .dnsLookupFailed:
            return EngineError(.connection, "cannot find the host of \(displayURL)")
        case .networkConnectionLost:
            return EngineError(
                .connection, "the connection to \(displayURL) was lost before the answer was complete")
        default:
            return EngineError(.connection, "the request to \(displayURL) failed: \(error.localizedDescription)")
        }
    }

    /// The base URL without any user name or password in it, for messages.
    public var displayURL: String {
        guard var parts = URLComponents(string: baseURL), parts.user != nil || parts.password != nil else {
            return baseURL
        }
        parts.user = nil
        parts.password = nil
        return parts.string ?? baseURL
    }

    /// `keep key set SLOT`, with `--account` when the account is not the default.
    public static func keySetCommand(_ ref: SecretRef) -> String {
        "`keep key set \(ref.slot.rawValue)"
            + (ref.account == "default" ? "" : " --account \(StorageError.quoted(ref.account))") + "`"
    }

    /// A server's message on one line, at most 300 characters, with the key blanked out.
    static func oneLine(_ message: String, hiding key: String?) -> String {
        var text = message
        if let key, !key.isEmpty { text = text.replacingOccurrences(of: key, with: "[your key]") }
        text = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.count > 300 ? String(text.prefix(299)) + "…" : text
    }

    /// How much of an error body or a whole JSON answer is kept: more is not a chat answer.
    private static let bodyLimit = 4 << 20

    private static func isSuccess(_ response: HTTPURLResponse) -> Bool {
        (200..<300).contains(response.statusCode)
    }

    /// Whether the body is server-sent events: a JSON content type is a whole answer,
    /// anything else is read as events (some servers label them loosely).
    private static func isEventStream(_ response: HTTPURLResponse) -> Bool {
        let type = response.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
        return !type.hasPrefix("application/json")
    }
}
