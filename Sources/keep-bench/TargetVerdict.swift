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
        verdicts += historyVerdicts(for: report)
        return verdicts
    }

    /// Issue 16's targets: the chat index's listing and search at 10,000 chats, the whole
    /// `keep chats --json`, and a listing's memory per chat.
    private static func historyVerdicts(for report: BenchReport) -> [TargetVerdict] {
        let list = HistoryScenario.listTitle(10_000)
        var verdicts = [
            check(
                "listing 10,000 chats in process within 0.5× of reading every file raw", in: report,
                comparison: list, row: HistoryScenario.indexList, atMost: 0.5),
            check(
                "keep chats --json over 10,000 chats, a whole process, within 1× of reading every file raw",
                in: report, comparison: list, row: HistoryScenario.keepList, atMost: 1.0),
            check(
                "searching 10,000 chats within 0.5× of the bench's scan of every file", in: report,
                comparison: HistoryScenario.searchTitle(10_000), row: HistoryScenario.indexSearch, atMost: 0.5),
        ]
        let target = "a listing process's peak memory growing by at most 1 KiB per chat"
        let growth = report.scenarios.lazy.flatMap(\.facts).first { $0.name == HistoryScenario.growth }
        if let growth {
            verdicts.append(
                TargetVerdict(
                    target: target, measured: growth.value / 1024, limit: 1.0, bound: "at most",
                    met: growth.value <= 1024,
                    detail: "\(HistoryScenario.growth): \(Format.significant(growth.value)) \(growth.unit)"))
        } else {
            verdicts.append(
                TargetVerdict(
                    target: target, measured: nil, limit: 1.0, bound: "at most", met: nil,
                    detail: "not measured in this run (\(HistoryScenario.growth))"))
        }
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
