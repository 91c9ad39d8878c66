import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One URLSession data task, its delegate callbacks turned into an async stream: the
/// response, then each piece of the body as it arrives.
///
/// FoundationNetworking on Linux has no `bytes(for:)`, so the bytes come from
/// `urlSession(_:dataTask:didReceive:)`, the delegate call made for every piece the
/// transfer receives, and are yielded at once; nothing waits for the whole body.
/// Ending the stream early (the consumer's task cancelled, or it stopped reading)
/// cancels the request. The session is invalidated when the task ends, which releases
/// the delegate. A redirect is never followed here (see
/// ``urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)``).
final class DataTaskEvents: NSObject, URLSessionDataDelegate, Sendable {
    /// What the task reports, in order: one response, then data.
    enum Event: Sendable {
        case response(HTTPURLResponse)
        case data(Data)
    }

    /// The body passed the byte limit: the transfer was cancelled there.
    struct LimitExceeded: Error, Equatable {
        let limit: Int
    }

    private let continuation: AsyncThrowingStream<Event, any Error>.Continuation
    private let byteLimit: Int
    private let received = Mutex(0)

    private init(_ continuation: AsyncThrowingStream<Event, any Error>.Continuation, byteLimit: Int) {
        self.continuation = continuation
        self.byteLimit = byteLimit
    }

    /// Starts `request`; `idleTimeout` is how long the transfer may go without receiving
    /// anything before it fails with `URLError.timedOut`. A body longer than `byteLimit`
    /// ends the stream with ``LimitExceeded`` and cancels the transfer, in the delegate
    /// itself: memory stays bounded however slowly the consumer reads.
    static func start(
        _ request: URLRequest, idleTimeout: TimeInterval, byteLimit: Int = .max
    ) -> AsyncThrowingStream<Event, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Event.self)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        // Nothing of a conversation is cached or kept in cookies.
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(
            configuration: configuration, delegate: DataTaskEvents(continuation, byteLimit: byteLimit),
            delegateQueue: nil)
        let task = session.dataTask(with: request)
        // A consumer that stops listening (Ctrl-C cancelled its task) stops the request.
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        task.resume()
        // The session lets go of its delegate once the task is over, whatever ends it.
        session.finishTasksAndInvalidate()
        return stream
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let response = response as? HTTPURLResponse {
            continuation.yield(.response(response))
        }
        completionHandler(.allow)
    }

    /// Never follows a redirect: the redirect answer itself comes through as the response,
    /// for the engine to decide on with ``RedirectPolicy`` (it alone holds the body, which
    /// FoundationNetworking would drop on the way, and knows whether the origin changed).
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let total = received.withLock { total in
            total += data.count
            return total
        }
        guard total <= byteLimit else {
            continuation.finish(throwing: LimitExceeded(limit: byteLimit))
            dataTask.cancel()
            return
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
