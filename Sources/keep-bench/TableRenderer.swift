/// The report as Markdown tables: readable in a terminal, and written as it is into the
/// Performance article by `--update`. Each table puts the ratio first, then the
/// contender, its median and spread.
enum TableRenderer {
    static func render(_ report: BenchReport) -> String {
        var out: [String] = ["# keep-bench", ""]
        if report.quick {
            out += ["**Quick run: these figures check the code paths; they are not for comparing.**", ""]
        }
        if report.build != "release" {
            out += [
                "**\(report.build) build: figures are not representative; run `swift run -c release keep-bench`.**", "",
            ]
        }
        out += [
            "- date: \(report.date), \(report.build) build",
            "- machine: \(report.machine.summary)",
            "- directory: \(report.directory) (\(report.placement))",
            "- samples: \(report.repetitions) per contender (fewer where a row says it is bounded), after "
                + "\(report.warmUp) warm-up round\(report.warmUp == 1 ? "" : "s"); contenders interleaved",
            "",
            "## Targets",
            "",
            "| verdict | measured | target |",
            "| --- | ---: | --- |",
        ]
        for verdict in report.targets {
            let word = verdict.met.map { $0 ? "met" : "**missed**" } ?? "not measured"
            // A figure with a unit of its own (peak memory in MB) is shown in it, a ratio as one.
            let shown = { (value: Double) in
                verdict.unit.map { "\(Format.significant(value)) \($0)" } ?? Format.ratio(value)
            }
            let measured = verdict.measured.map(shown) ?? "–"
            out.append("| \(word) | \(measured) | \(verdict.target) (\(verdict.bound) \(shown(verdict.limit))) |")
        }
        for scenario in report.scenarios {
            out += ["", "## \(scenario.id.rawValue): \(scenario.summary)", ""]
            if let reason = scenario.skipped {
                out.append("Skipped: \(reason).")
            }
            if let error = scenario.failed {
                out.append("**Failed:** \(error)")
            }
            for comparison in scenario.comparisons {
                out += table(comparison)
            }
            if !scenario.facts.isEmpty {
                out += ["", "| measured once | value |", "| --- | ---: |"]
                out += scenario.facts.map { "| \($0.name) | \(Format.significant($0.value)) \($0.unit) |" }
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func table(_ comparison: ComparisonReport) -> [String] {
        let heading =
            comparison.metric == .latency
            ? "time per \(comparison.operation); ratio = time ÷ the baseline's in the same round (median), lower is better"
            : "\(comparison.operation)s per second; ratio = rate ÷ the baseline's in the same round (median), higher is better"
        var out = [
            "### \(comparison.title)", "", "Baseline: \(comparison.baseline); \(heading).", "",
            "| ratio | contender | median | p10 – p90 | samples |", "| ---: | --- | ---: | ---: | ---: |",
        ]
        for row in comparison.rows {
            let notes = [row.note, row.bound.map { "bounded to \($0) samples" }].compactMap { $0 }
            let name =
                ([row.isBaseline ? "**\(row.name)**" : row.name]
                + (notes.isEmpty ? [] : ["(\(notes.joined(separator: "; ")))"]))
                .joined(separator: " ")
            let median: String
            let spread: String
            if let rate = row.perSecond {
                median = Format.rate(rate.median)
                spread = "\(Format.rate(rate.low)) – \(Format.rate(rate.high))"
            } else {
                median = Format.duration(row.seconds.median)
                spread = "\(Format.duration(row.seconds.p10)) – \(Format.duration(row.seconds.p90))"
            }
            out.append("| \(Format.ratio(row.ratio)) | \(name) | \(median) | \(spread) | \(row.seconds.samples) |")
        }
        out.append("")
        return out
    }
}
