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
    /// What `measured` and `limit` count when they are not ratios (`"MB"`); `nil` for a ratio.
    var unit: String? = nil

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

    /// Issue 16's targets (the small chats at 10,000), and issue 25's and issue 24's: the
    /// realistic history at 40,000 chats, warm and cold, sealed beside plain, and the turn.
    private static func historyVerdicts(for report: BenchReport) -> [TargetVerdict] {
        let small = HistoryScenario.listTitle(10_000, .small)
        var verdicts = [
            check(
                "listing 10,000 small chats in process within 0.5× of reading every file raw", in: report,
                comparison: small, row: HistoryScenario.indexList, over: HistoryScenario.rawList, atMost: 0.5),
            check(
                "keep chats --json over 10,000 small chats, a whole process, within 1× of reading every file raw",
                in: report, comparison: small, row: HistoryScenario.keepList, over: HistoryScenario.rawList,
                atMost: 1.0),
            check(
                "searching 10,000 small chats within 0.5× of the bench's scan of every file", in: report,
                comparison: HistoryScenario.searchTitle(10_000, .small), row: HistoryScenario.indexSearch,
                over: HistoryScenario.scan, atMost: 0.5),
        ]
        verdicts.append(
            fact(
                "a listing process's peak memory growing by at most 1 KiB per chat", in: report,
                named: HistoryScenario.growth, scaled: 1.0 / 1024, atMost: 1.0))
        let cold = HistoryScenario.coldTitle(40_000)
        verdicts += [
            check(
                "a cold listing (the index deleted) of 40,000 realistic chats within 1.5× of reading every chat once",
                in: report, comparison: cold, row: HistoryScenario.coldList, atMost: 1.5),
            check(
                "a cold rebuild of 40,000 realistic chats (summaries and words) within 1.5× of reading every chat once",
                in: report, comparison: cold, row: HistoryScenario.coldSearch, atMost: 1.5),
            check(
                "the first search after a cold listing of 40,000 realistic chats within 2× of a warm search",
                in: report,
                comparison: HistoryScenario.firstSearchTitle(40_000), row: HistoryScenario.firstSearch, atMost: 2.0),
            fact(
                "a cold rebuild's peak memory (keep chats search, 40,000 realistic chats) at most 100 MB", in: report,
                named: HistoryScenario.coldSearchMemory(40_000), scaled: 1024.0 / 1_000_000, unit: "MB", atMost: 100),
            fact(
                "a cold listing's peak memory (keep chats --json, 40,000 realistic chats) at most 100 MB", in: report,
                named: HistoryScenario.coldListMemory(40_000), scaled: 1024.0 / 1_000_000, unit: "MB", atMost: 100),
            check(
                "warm keep chats --json over 40,000 realistic chats within 0.5× of cat of every chat file", in: report,
                comparison: HistoryScenario.listTitle(40_000), row: HistoryScenario.keepList, atMost: 0.5),
            check(
                "warm keep chats search over 40,000 realistic chats within 0.5× of grep -rli over them", in: report,
                comparison: HistoryScenario.searchTitle(40_000), row: HistoryScenario.keepSearch, atMost: 0.5),
            fact(
                "the chat index at most 0.5× the chats' bytes, 40,000 realistic chats", in: report,
                named: HistoryScenario.indexShare(40_000), atMost: 0.5),
        ]
        for count in [10_000, 40_000] {
            verdicts.append(
                check(
                    "a sealed listing of \(Format.count(count)) realistic chats within 1.5× of plain", in: report,
                    comparison: HistoryScenario.sealedListTitle(count), row: HistoryScenario.sealedIndexList,
                    atMost: 1.5))
            verdicts.append(
                check(
                    "a sealed search of \(Format.count(count)) realistic chats within 1.5× of plain", in: report,
                    comparison: HistoryScenario.sealedSearchTitle(count), row: HistoryScenario.sealedIndexSearch,
                    atMost: 1.5))
        }
        verdicts.append(
            check(
                "the time a turn holds the store lock at 2,000 turns within 2× of at 1", in: report,
                comparison: TurnScenario.lockTitle, row: TurnScenario.locked(2_000), atMost: 2.0))
        let bytes = "the bytes a turn writes at 2,000 turns within 2× of at 1"
        let facts = report.scenarios.lazy.flatMap(\.facts)
        if let one = facts.first(where: { $0.name == TurnScenario.written(1) }),
            let many = facts.first(where: { $0.name == TurnScenario.written(2_000) }), one.value > 0
        {
            let ratio = many.value / one.value
            verdicts.append(
                TargetVerdict(
                    target: bytes, measured: ratio, limit: 2, bound: "at most", met: ratio <= 2,
                    detail:
                        "\(Format.significant(many.value)) KiB at 2,000 turns, \(Format.significant(one.value)) KiB at 1"
                ))
        } else {
            verdicts.append(
                TargetVerdict(
                    target: bytes, measured: nil, limit: 2, bound: "at most", met: nil,
                    detail: "not measured in this run (\(TurnScenario.written(2_000)))"))
        }
        for turns in [1, 2_000] {
            verdicts.append(
                check(
                    "a sealed turn within 1.1× of a plain one, in a chat of \(turns == 1 ? "1 turn" : "\(Format.count(turns)) turns")",
                    in: report,
                    comparison: TurnScenario.title(turns), row: TurnScenario.sealedTurn, atMost: 1.1))
        }
        return verdicts
    }

    /// A verdict on the figure measured once called `name`, times `scaled`.
    private static func fact(
        _ target: String, in report: BenchReport, named name: String, scaled: Double = 1, unit: String? = nil,
        atMost limit: Double
    ) -> TargetVerdict {
        guard let fact = report.scenarios.lazy.flatMap(\.facts).first(where: { $0.name == name }) else {
            return TargetVerdict(
                target: target, measured: nil, limit: limit, bound: "at most", met: nil,
                detail: "not measured in this run (\(name))", unit: unit)
        }
        let value = fact.value * scaled
        return TargetVerdict(
            target: target, measured: value, limit: limit, bound: "at most", met: value <= limit,
            detail: "\(name): \(Format.significant(fact.value)) \(fact.unit)", unit: unit)
    }

    /// A verdict on one row against another of the same comparison: the ratio of their
    /// ratios to its baseline (each the median of round-by-round ratios).
    private static func check(
        _ target: String, in report: BenchReport, comparison title: String, row name: String, over other: String,
        atMost limit: Double
    ) -> TargetVerdict {
        let comparison = report.scenarios.lazy.flatMap(\.comparisons).first { $0.title == title }
        guard let comparison, let row = comparison.row(name), let base = comparison.row(other), row.ratio > 0,
            base.ratio > 0
        else {
            return TargetVerdict(
                target: target, measured: nil, limit: limit, bound: "at most", met: nil,
                detail: "not measured in this run (\(title): \(name))")
        }
        let ratio = row.ratio / base.ratio
        return TargetVerdict(
            target: target, measured: ratio, limit: limit, bound: "at most", met: ratio <= limit,
            detail: "\(title): \(name), \(Format.ratio(ratio)) \(other) (each against \(comparison.baseline))")
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
