/// What one run measured, as the table, the chart and `--json` show it.
///
/// Times are seconds per operation. A row's `ratio` is against its comparison's
/// baseline, as ``Comparison`` defines it for the metric, taken round by round.
struct BenchReport: Sendable, Codable {
    /// When the run started, ISO 8601 in UTC.
    let date: String
    /// `"release"` or `"debug"`: a debug build's figures are not representative.
    let build: String
    let quick: Bool
    let machine: Machine
    /// The directory the run worked in, and why there.
    let directory: String
    let placement: String
    let warmUp: Int
    let repetitions: Int
    var scenarios: [ScenarioReport]
    var targets: [TargetVerdict]
}

/// One scenario's comparisons, or why it was skipped, or how it failed.
struct ScenarioReport: Sendable, Codable {
    let id: ScenarioID
    let summary: String
    /// Why the scenario did not run here (no Secret Service, a part not landed yet).
    var skipped: String?
    /// The error that stopped it: a failure of a store or a baseline, never expected.
    var failed: String?
    var comparisons: [ComparisonReport]
    /// Figures measured once rather than sampled.
    var facts: [Fact] = []
}

/// One comparison's rows, the baseline among them.
struct ComparisonReport: Sendable, Codable {
    let title: String
    let metric: Comparison.Metric
    let operation: String
    let baseline: String
    let rows: [RowReport]

    /// The row called `name`.
    func row(_ name: String) -> RowReport? {
        rows.first { $0.name == name }
    }
}

/// One contender's figures.
struct RowReport: Sendable, Codable {
    let name: String
    let note: String?
    let count: Int?
    /// The most samples it was allowed, when it was bounded for being slow.
    let bound: Int?
    /// Seconds per operation.
    let seconds: Spread
    /// Operations per second at the median (and at p10/p90 of time, swapped), for a
    /// throughput comparison.
    let perSecond: PerSecond?
    /// Against the baseline, round by round (see ``ComparisonReport/init(_:samples:)``): time
    /// over its time for latency, rate over its rate for throughput.
    let ratio: Double
    let isBaseline: Bool

    struct PerSecond: Sendable, Codable {
        let median: Double
        let low: Double
        let high: Double
    }
}

extension ComparisonReport {
    /// The report for `comparison` from its contenders' samples by round (in the same
    /// order). Contenders without samples are left out.
    ///
    /// A row's ratio is the median, over the rounds both took part in, of its sample
    /// against the baseline's sample of the same round. Samples taken moments apart saw the
    /// same machine, so a disk or a neighbour that slows down for a while moves both sides
    /// of each ratio, where it would move a ratio of two medians. It is 0 when no round
    /// has both.
    init(_ comparison: Comparison, samples: [[Double?]]) {
        let base = zip(comparison.contenders, samples).first { $0.0.name == comparison.baseline }?.1 ?? []
        rows = zip(comparison.contenders, samples).compactMap { contender, rounds in
            guard let spread = Spread(rounds.compactMap { $0 }) else { return nil }
            let ratios = zip(rounds, base).compactMap { mine, theirs -> Double? in
                guard let mine, let theirs, mine > 0, theirs > 0 else { return nil }
                return comparison.metric == .latency ? mine / theirs : theirs / mine
            }
            let perSecond =
                comparison.metric == .throughput && spread.median > 0
                ? RowReport.PerSecond(median: 1 / spread.median, low: 1 / spread.p90, high: 1 / spread.p10) : nil
            return RowReport(
                name: contender.name, note: contender.note, count: contender.count,
                bound: contender.sampleLimit.flatMap { $0 < rounds.count ? $0 : nil },
                seconds: spread,
                perSecond: perSecond, ratio: Spread(ratios)?.median ?? 0,
                isBaseline: contender.name == comparison.baseline)
        }
        title = comparison.title
        metric = comparison.metric
        operation = comparison.operation
        baseline = comparison.baseline
    }
}
