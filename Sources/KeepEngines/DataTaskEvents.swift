import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport every engine sends through: one request, checked by the edge's rules,
/// sent as one URLSession data task, its delegate callbacks turned into an async stream
/// (the response, then each piece of the body as it arrives).
///
/// Before anything connects, the cleartext rule decides, as for every transfer
/// (``Transfer/launch(_:edge:limits:continuation:)``); the key's header is built only
/// when the request is sent (``OutgoingRequest/sending(to:userAgent:)``).
///
/// FoundationNetworking on Linux has no `bytes(for:)`, so the bytes come from
/// `urlSession(_:dataTask:didReceive:)`, the delegate call made for every piece the
/// transfer receives, and are yielded at once; nothing waits for the whole body. Every
/// wait is bounded (``TransferLimits``): an idle gap (URLSession's request timeout), the
/// response head, the whole answer, the body's size. Ending the stream early (the
/// consumer's task cancelled, or it stopped reading) cancels the request. The session is
/// invalidated when the task ends, which releases the delegate. A redirect is never
/// followed here (see
/// ``urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)``).
final class DataTaskEvents: NSObject, URLSessionDataDelegate, Transfer {
    /// What the task reports, in order: one response, then data.
    enum Event: Sendable {
        case response(HTTPURLResponse)
        case data(Data)
    }

    /// The body passed the byte limit: the transfer was cancelled there.
    struct LimitExceeded: Error, Equatable {
        let limit: Int
    }

    /// A time limit of ``TransferLimits`` ran out: the transfer was cancelled there.
    struct TimeLimitReached: Error, Equatable {
        /// What was not over in time.
        enum Part: Sendable, Equatable {
            /// The response's status line and headers.
            case headers
            /// The whole answer.
            case answer
        }

        let part: Part
        let seconds: TimeInterval
    }

    /// The key would have gone over plain http to a host that is not this machine:
    /// nothing was sent. `detail` says where the name goes (``CleartextRule/Verdict``).
    struct CleartextRefusal: Error, Equatable {
        let host: String
        let detail: String
    }

    private struct State {
        var task: URLSessionDataTask?
        var stopped = false
        var responded = false
        var received = 0
    }

    private let continuation: AsyncThrowingStream<Event, any Error>.Continuation
    private let byteLimit: Int
    private let idle: TimeInterval
    private let userAgent: String
    private let state = Mutex(State())

    private init(
        _ continuation: AsyncThrowingStream<Event, any Error>.Continuation, limits: TransferLimits, userAgent: String
    ) {
        self.continuation = continuation
        self.byteLimit = limits.bytes
        self.idle = limits.idle
        self.userAgent = userAgent
    }

    /// Starts `outgoing` under `edge`'s rules and `limits` (``Transfer/launch(_:edge:limits:continuation:)``);
    /// the stream ends with the body, or throws ``CleartextRefusal``, ``LimitExceeded``,
    /// ``TimeLimitReached`` or the transfer's `URLError`.
    static func start(
        _ outgoing: OutgoingRequest, edge: EdgePolicy, limits: TransferLimits
    ) -> AsyncThrowingStream<Event, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Event.self)
        DataTaskEvents(continuation, limits: limits, userAgent: edge.userAgent).launch(
            outgoing, edge: edge, limits: limits, continuation: continuation)
        return stream
    }

    var hasResponded: Bool { state.withLock(\.responded) }

    /// Sends the request on a session of its own, unless the transfer was stopped first.
    func send(_ outgoing: OutgoingRequest, to address: String?) {
        let session = URLSession(
            configuration: SessionConfiguration.make(idleTimeout: idle), delegate: self, delegateQueue: nil)
        let task = session.dataTask(with: outgoing.sending(to: address, userAgent: userAgent))
        let started = state.withLock { state in
            guard !state.stopped else { return false }
            state.task = task
            return true
        }
        if started { task.resume() } else { task.cancel() }
        // The session lets go of its delegate once the task is over, whatever ends it.
        session.finishTasksAndInvalidate()
    }

    /// Ends the stream (with `error`, when there is one) and cancels the transfer.
    func stop(throwing error: (any Error)?) {
        let task = state.withLock { state in
            state.stopped = true
            return state.task
        }
        if let error { continuation.finish(throwing: error) }
        task?.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.responded = true }
        if let response = response as? HTTPURLResponse {
            continuation.yield(.response(response))
        }
        completionHandler(.allow)
    }

    /// Never follows a redirect: the redirect answer itself comes through as the response,
    /// for the engine to decide on with ``RedirectPolicy`` (it alone holds the body, which
    /// FoundationNetworking would drop on the way, and knows whether the origin changed).
    /// The request the engine then sends is checked by the cleartext rule again.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let total = state.withLock { state in
            state.received += data.count
            return state.received
        }
        guard total <= byteLimit else {
            return stop(throwing: LimitExceeded(limit: byteLimit))
        }
        continuation.yield(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
    }
}
