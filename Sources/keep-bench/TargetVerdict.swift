/// One of issue 8's targets, checked against this run's figures: met, missed, or not
/// measured here (and why).
struct TargetVerdict: Sendable, Codable {
    /// The target as a sentence: `"a durable write of 1 KiB within 1.15× of the two-flush floor"`.
    let target: String
    /// The ratio measured, when it was.
    let measured: Double?
    let limit: Double
    /// `"at most"` or `"at least"`: which side of the limit meets the target.
    let bound: String
    /// `nil` when not measured in this run.
    let met: Bool?
    /// Where the ratio comes from, or why it was not measured.
    let detail: String

    /// The verdicts for `report`'s scenarios.
    static func all(for report: BenchReport) -> [TargetVerdict] {
        var verdicts: [TargetVerdict] = DurableWriteScenario.sizes.map { size in
            check(
                "a durable write of \(Payload.label(size)) within 1.15× of the two-flush floor", in: report,
                comparison: DurableWriteScenario.title(size), row: DurableWriteScenario.fileStore, atMost: 1.15)
        }
        let largest = ScalingScenario.fileStore(100_000)
        verdicts.append(
            check(
                "writing one key at 100,000 keys within 1.2× of at 10", in: report,
                comparison: ScalingScenario.fileStoreTitle, row: largest, atMost: 1.2))
        verdicts.append(
            check(
                "with 16 writers, at least SQLite WAL FULL's durable writes per second", in: report,
                comparison: ConcurrentWritersScenario.title(16), row: ConcurrentWritersScenario.fileStore,
                atLeast: 1.0))
        verdicts.append(
            check(
                "sealing 64 KiB within 1.1× of raw EVP", in: report, comparison: SealingScenario.title("seal", 65_536),
                row: SealingScenario.port, atMost: 1.1))
        return verdicts
    }

    private static func check(
        _ target: String, in report: BenchReport, comparison title: String, row name: String,
        atMost: Double? = nil, atLeast: Double? = nil
    ) -> TargetVerdict {
        let limit = atMost ?? atLeast ?? 1
        let bound = atMost != nil ? "at most" : "at least"
        let comparison = report.scenarios.lazy.flatMap(\.comparisons).first { $0.title == title }
        guard let comparison, let row = comparison.row(name), row.ratio > 0 else {
            return TargetVerdict(
                target: target, measured: nil, limit: limit, bound: bound, met: nil,
                detail: "not measured in this run (\(title): \(name))")
        }
        let met = atMost.map { row.ratio <= $0 } ?? (row.ratio >= limit)
        return TargetVerdict(
            target: target, measured: row.ratio, limit: limit, bound: bound, met: met,
            detail: "\(title): \(name), \(Format.ratio(row.ratio)) the baseline (\(comparison.baseline))")
    }
}
