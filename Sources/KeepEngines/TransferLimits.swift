import Foundation

/// How long and how much one transfer may take: every wait bounded, however a server
/// trickles.
///
/// - `idle`: how long the server may stay silent, before its first byte or between two.
/// - `headers`: how long the whole response head (status line and headers) may take from
///   the start; a server that sends one header line a second is ended there.
/// - `total`: how long the whole answer may take from the start, however steadily it comes.
/// - `bytes`: how much of the body is read; more ends the transfer where it arrives.
package struct TransferLimits: Sendable, Equatable {
    package var idle: TimeInterval
    package var headers: TimeInterval
    package var total: TimeInterval
    package var bytes: Int

    /// Limits of `idle`, `headers` (at most `total`), `total` seconds and `bytes` bytes.
    package init(idle: TimeInterval, headers: TimeInterval, total: TimeInterval, bytes: Int) {
        self.idle = idle
        self.headers = min(headers, total)
        self.total = total
        self.bytes = bytes
    }
}
