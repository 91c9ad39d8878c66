/// A table of contenders doing the same work, each compared with one of them, the baseline.
///
/// For ``Metric/latency`` the ratio is a contender's time over the baseline's (lower is
/// better); for ``Metric/throughput`` it is its operations per second over the baseline's
/// (higher is better); either way taken round by round, and the median kept.
struct Comparison: Sendable {
    enum Metric: String, Sendable, Codable {
        /// Time per operation.
        case latency
        /// Operations per second, from the time per operation.
        case throughput
    }

    /// The table's heading: `"durable write, 1 KiB"`.
    let title: String
    let metric: Metric
    /// What one operation is, for the heading: `"write"`, `"seal"`.
    let operation: String
    /// The name of the contender every ratio is taken against.
    let baseline: String
    let contenders: [Contender]
}
