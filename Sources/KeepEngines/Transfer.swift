import Foundation

/// One request on its way, whichever HTTP library sends it: URLSession (``DataTaskEvents``)
/// or libcurl for a server verified against its own authority (``CurlTransfer``). What the
/// two share is written once, here (``launch(_:edge:limits:continuation:)``), so every rule of
/// the edge holds the same for both; each reports the same events
/// (``DataTaskEvents/Event``) and the same failures.
protocol Transfer: Sendable {
    /// Whether the response's status line and headers are all in.
    var hasResponded: Bool { get }
    /// Sends `outgoing` (to `address` instead of its host when the cleartext rule pinned it
    /// there), its key header built only now; does nothing once the transfer was stopped.
    func send(_ outgoing: OutgoingRequest, to address: String?)
    /// Ends the stream (with `error`, when there is one) and cancels the transfer.
    func stop(throwing error: (any Error)?)
}

extension Transfer {
    /// Starts `outgoing` under `edge`'s rules and `limits`, its events going to `continuation`.
    ///
    /// Before anything connects, the cleartext rule (``CleartextRule``) decides: a key over
    /// plain http to a host that is not this machine ends the stream with
    /// ``DataTaskEvents/CleartextRefusal`` and nothing is sent; a request whose host was
    /// found to be this machine by resolving it is sent to the address it resolved to. The
    /// header and total time limits count from now, the resolving inside them, and end the
    /// stream with ``DataTaskEvents/TimeLimitReached``. However the stream ends (the
    /// consumer gone, or the transfer over), nothing of it goes on.
    func launch(
        _ outgoing: OutgoingRequest, edge: EdgePolicy, limits: TransferLimits,
        continuation: AsyncThrowingStream<DataTaskEvents.Event, any Error>.Continuation
    ) {
        let sender = Task {
            let verdict = await CleartextRule.verdict(
                for: outgoing.url, sendsKey: outgoing.key != nil, allowedHosts: edge.keyOverHttpHosts)
            var address: String?
            switch verdict {
            case .refused(let host, let detail):
                continuation.finish(throwing: DataTaskEvents.CleartextRefusal(host: host, detail: detail))
                return
            case .thisMachine(let pinned): address = pinned
            case .fine, .allowedByName: break
            }
            send(outgoing, to: address)
        }
        let watchdog = Task {
            guard (try? await Task.sleep(for: .seconds(limits.headers))) != nil else { return }
            if !hasResponded {
                return stop(throwing: DataTaskEvents.TimeLimitReached(part: .headers, seconds: limits.headers))
            }
            guard (try? await Task.sleep(for: .seconds(limits.total - limits.headers))) != nil else { return }
            stop(throwing: DataTaskEvents.TimeLimitReached(part: .answer, seconds: limits.total))
        }
        continuation.onTermination = { _ in
            sender.cancel()
            watchdog.cancel()
            stop(throwing: nil)
        }
    }
}
