import Foundation

/// One keep-bench run: every chosen scenario prepared in a directory of its own, its
/// contenders measured interleaved, and the report with the targets' verdicts.
///
/// Progress goes to `log` (standard error), so standard output holds only the report. A
/// scenario that fails is reported as failed and the run goes on; the exit status says so.
struct KeepBench: Sendable {
    let options: BenchOptions
    let environment: [String: String]
    let log: @Sendable (String) -> Void

    /// Runs the command line `arguments`: prints the report (tables, or JSON), writes the
    /// chart, and answers the exit status: 0, 1 when a scenario failed or the run could
    /// not start, 2 for a usage error.
    static func main(arguments: [String], environment: [String: String]) async -> Int32 {
        let options: BenchOptions
        do {
            options = try BenchOptions(arguments: arguments)
        } catch {
            printError("keep-bench: \(error)")
            return 2
        }
        if options.help {
            print(BenchOptions.usage)
            return 0
        }
        // A file that cannot take the tables is refused before a run of many minutes.
        if let path = options.updatePath {
            do {
                _ = try MarkedRegion.replacing(
                    in: try String(contentsOfFile: path, encoding: .utf8), with: "", path: path)
            } catch {
                printError("keep-bench: --update \(path): \(error)")
                return 2
            }
        }
        let bench = KeepBench(options: options, environment: environment, log: { printError($0) })
        let report: BenchReport
        do {
            report = try await bench.run()
        } catch {
            printError("keep-bench: \(error)")
            return 1
        }
        var status: Int32 = report.scenarios.contains { $0.failed != nil } ? 1 : 0
        // The chart first: its line on standard error then comes before the report, not inside it.
        let series = ScalingChart.series(in: report)
        if !series.isEmpty {
            let caption = "\(report.machine.summary); \(report.date)\(report.quick ? "; QUICK RUN" : "")"
            do {
                try ScalingChart.svg(series, caption: caption).write(
                    toFile: options.chartPath, atomically: true, encoding: .utf8)
                printError("keep-bench: wrote the scaling chart to \(options.chartPath)")
            } catch {
                printError(
                    "keep-bench: cannot write the scaling chart to \(options.chartPath): \(error.localizedDescription)")
                status = 1
            }
        }
        let history = ScalingChart.historySeries(in: report)
        if !history.isEmpty {
            let caption = "\(report.machine.summary); \(report.date)\(report.quick ? "; QUICK RUN" : "")"
            let path = ScalingChart.historyPath(beside: options.chartPath)
            do {
                try ScalingChart.svg(history, caption: caption, labels: .history).write(
                    toFile: path, atomically: true, encoding: .utf8)
                printError("keep-bench: wrote the history chart to \(path)")
            } catch {
                printError("keep-bench: cannot write the history chart to \(path): \(error.localizedDescription)")
                status = 1
            }
        }
        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(report) else {
                printError("keep-bench: the report could not be encoded as JSON")
                return 1
            }
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(TableRenderer.render(report), terminator: "")
        }
        if let path = options.updatePath {
            do {
                let document = try String(contentsOfFile: path, encoding: .utf8)
                let updated = try MarkedRegion.replacing(in: document, with: TableRenderer.render(report), path: path)
                try updated.write(toFile: path, atomically: true, encoding: .utf8)
                printError("keep-bench: wrote the tables into \(path)")
            } catch {
                printError("keep-bench: cannot write the tables into \(path): \(error)")
                status = 1
            }
        }
        return status
    }

    /// Runs the chosen scenarios and answers the report.
    func run() async throws -> BenchReport {
        let directory = try BenchDirectory(under: options.directory, environment: environment)
        defer { directory.remove() }
        let scale = options.scale
        #if DEBUG
            let build = "debug"
        #else
            let build = "release"
        #endif
        var report = BenchReport(
            date: ISO8601DateFormatter().string(from: Date()), build: build, quick: scale.isQuick,
            machine: Machine(directory: directory.path), directory: directory.path, placement: directory.placement,
            warmUp: scale.warmUp, repetitions: scale.repetitions, scenarios: [], targets: [])
        log("keep-bench: working in \(directory.path) (\(directory.placement))")
        for id in options.scenarios {
            let folder = directory.appending(id.rawValue)
            var result = ScenarioReport(id: id, summary: id.summary, comparisons: [])
            let started = ContinuousClock.now
            do {
                try RawFile.makeDirectories(folder)
                log("\(id.rawValue): preparing")
                switch try await Self.scenario(id).prepare(in: folder, scale: scale) {
                case .skipped(let reason):
                    result.skipped = reason
                    log("\(id.rawValue): skipped: \(reason)")
                case .ready(let comparisons, let facts, let finish):
                    result.facts = facts
                    log("\(id.rawValue): measuring \(comparisons.map(\.contenders.count).reduce(0, +)) contenders")
                    do {
                        result.comparisons = try await measure(comparisons, scale: scale)
                    } catch {
                        await finish()
                        throw error
                    }
                    await finish()
                    log("\(id.rawValue): done in \(Format.duration(Sampler.seconds(ContinuousClock.now - started)))")
                }
            } catch {
                result.failed = "\(error)"
                log("\(id.rawValue): FAILED: \(error)")
            }
            report.scenarios.append(result)
            // Each scenario's files go before the next starts (the largest take half a
            // gigabyte), and their removal reaches the disk first: removing 100,000 files
            // leaves the file system work that would otherwise slow the next scenario's writes.
            try? FileManager.default.removeItem(atPath: folder)
            RawFile.flushEverything()
        }
        report.targets = TargetVerdict.all(for: report)
        return report
    }

    /// Measures every contender of `comparisons` in one interleaved run, and splits the
    /// samples back into one report per comparison.
    private func measure(_ comparisons: [Comparison], scale: Scale) async throws -> [ComparisonReport] {
        let samples = try await Sampler.run(comparisons.flatMap(\.contenders), scale: scale)
        var offset = 0
        return comparisons.map { comparison in
            defer { offset += comparison.contenders.count }
            return ComparisonReport(comparison, samples: Array(samples[offset..<offset + comparison.contenders.count]))
        }
    }

    static func scenario(_ id: ScenarioID) -> any Scenario {
        switch id {
        case .durableWrite: DurableWriteScenario()
        case .scaling: ScalingScenario()
        case .reads: ReadsScenario()
        case .concurrentWriters: ConcurrentWritersScenario()
        case .sealing: SealingScenario()
        case .secrets: SecretsScenario()
        case .startup: StartupScenario()
        case .migration: MigrationScenario()
        case .history: HistoryScenario()
        case .turn: TurnScenario()
        case .hugeChat: HugeChatScenario()
        }
    }
}

/// `line` on standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
