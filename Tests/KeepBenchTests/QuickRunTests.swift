import Foundation
import KeepConformance
import Testing

@testable import keep_bench

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// keep-bench --quick, run in process: every scenario's code path, and the shape of what it
/// prints. Never a timing: a figure's value is not checked, only that it is one.
@Suite("keep-bench --quick")
struct QuickRunTests {
    @Test("a quick run measures every scenario it can, skips the others with a reason, and fails none")
    func aQuickRunCoversEveryScenario() async throws {
        let (report, directory) = try await Self.quickRun()
        #expect(report.quick)
        #expect(report.scenarios.map(\.id) == ScenarioID.allCases)
        #expect(report.directory.hasPrefix(directory.path + "/keep-bench."))
        #expect(!FileManager.default.fileExists(atPath: report.directory), "the run's directory was left behind")
        for scenario in report.scenarios {
            #expect(scenario.failed == nil, "\(scenario.id) failed: \(scenario.failed ?? "")")
            if let reason = scenario.skipped {
                #expect(!reason.isEmpty)
                #expect(scenario.comparisons.isEmpty)
            } else {
                #expect(!scenario.comparisons.isEmpty, "\(scenario.id) neither ran nor said why")
            }
        }
        // Everything but the Secret Service (present only inside with-keyring) and the parts
        // not landed yet runs everywhere.
        let measured = Set(report.scenarios.filter { !$0.comparisons.isEmpty }.map(\.id))
        #expect(
            measured.isSuperset(of: [
                .durableWrite, .scaling, .reads, .concurrentWriters, .sealing, .history, .turn, .hugeChat,
            ]))
    }

    @Test("every table has its baseline at 1.00×, and every row a median inside its p10–p90 spread")
    func everyTableIsWellFormed() async throws {
        let (report, _) = try await Self.quickRun()
        let comparisons = report.scenarios.flatMap(\.comparisons)
        #expect(comparisons.count >= 13)
        for comparison in comparisons {
            let baseline = try #require(comparison.row(comparison.baseline), "\(comparison.title) lost its baseline")
            #expect(baseline.isBaseline && baseline.ratio == 1)
            #expect(comparison.rows.filter(\.isBaseline).count == 1)
            for row in comparison.rows {
                let spread = row.seconds
                #expect(spread.median > 0 && spread.p10 <= spread.median && spread.median <= spread.p90, "\(row.name)")
                #expect(row.ratio > 0, "\(comparison.title): \(row.name)")
                #expect(spread.samples == min(row.bound ?? .max, Scale.quick.repetitions), "\(row.name)")
                #expect((row.perSecond != nil) == (comparison.metric == .throughput))
            }
        }
        let durable = try #require(comparisons.first { $0.title == DurableWriteScenario.title(1024) })
        #expect(durable.row(DurableWriteScenario.foundation)?.note == "NOT DURABLE")
    }

    @Test("the history and turn scenarios report what they measure once: the index's size, a turn's bytes")
    func factsAreReported() async throws {
        let (report, _) = try await Self.quickRun()
        let facts = report.scenarios.flatMap(\.facts)
        let names = Set(facts.map(\.name))
        for kind in [ChatFixtures.Kind.realistic, .small] {
            for name in [
                HistoryScenario.indexSize(200, kind), HistoryScenario.chatBytes(200, kind),
                HistoryScenario.averageBytes(200, kind), HistoryScenario.indexShare(200, kind),
                HistoryScenario.coldSearchMemory(200, kind),
            ] {
                #expect(names.contains(name), "\(name)")
            }
        }
        #expect(names.contains(HistoryScenario.chatBytes(200, sealed: true)))
        for turns in Scale.quick.turnCounts {
            #expect(
                names.contains(TurnScenario.written(turns)) && names.contains(TurnScenario.written(turns, sealed: true))
            )
        }
        #expect(names.contains(HugeChatScenario.showMemory) && names.contains(HugeChatScenario.hugeBytes))
        #expect(facts.allSatisfy { $0.value > 0 }, "\(facts.map(\.name))")
        let text = TableRenderer.render(report)
        #expect(text.contains("| \(HistoryScenario.indexSize(200)) |"))
        // A realistic chat is about 19.5 KB as keep writes it; the small ones about 2 KB.
        let average = try #require(facts.first { $0.name == HistoryScenario.averageBytes(200) }?.value)
        #expect(average > 15_000 && average < 24_000, "\(average)")
    }

    @Test("the targets are judged where the quick run measures them, and said to be unmeasured where not")
    func theTargetsAreJudged() async throws {
        let (report, _) = try await Self.quickRun()
        #expect(report.targets.count == 25)
        for verdict in report.targets {
            #expect((verdict.met == nil) == (verdict.measured == nil), "\(verdict.target)")
        }
        // A quick run stops at 1,000 keys, 200 chats and 20 turns, so it judges only the
        // targets that hold at any size: the durable writes, the writers, sealing, and a
        // sealed turn at 1 turn; the others are said to be unmeasured, never guessed.
        let measured = report.targets.filter { $0.met != nil }.map(\.target)
        #expect(
            measured == [
                "a durable write of 1 KiB within 1.15× of the two-flush floor",
                "a durable write of 64 KiB within 1.15× of the two-flush floor",
                "with 16 writers, at least SQLite WAL FULL's durable writes per second",
                "sealing 64 KiB within 1.1× of raw EVP",
                "a sealed turn within 1.1× of a plain one, in a chat of 1 turn",
            ])
        #expect(report.targets.contains { $0.target.contains("40,000 realistic chats") && $0.met == nil })
        // A bound on memory is shown in megabytes, never as a ratio.
        let table = TableRenderer.render(report)
        #expect(table.contains("at most 100 MB (at most 100 MB) |") && !table.contains("(at most 100×)"))
    }

    @Test("the tables print one Markdown table per comparison, every row with five cells")
    func theTablesAreMarkdown() async throws {
        let (report, _) = try await Self.quickRun()
        let text = TableRenderer.render(report)
        #expect(text.contains("Quick run"))
        #expect(text.contains("- machine: \(report.machine.summary)"))
        for comparison in report.scenarios.flatMap(\.comparisons) {
            #expect(text.contains("### \(comparison.title)\n"))
        }
        for scenario in report.scenarios {
            if let reason = scenario.skipped { #expect(text.contains("Skipped: \(reason).")) }
        }
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("|") }
        #expect(!rows.isEmpty)
        for row in rows {
            // Three cells for a target, five in a comparison, two for a figure measured once:
            // "| a | b | c |" has one bar more than cells.
            let cells = row.filter { $0 == "|" }.count - 1
            #expect(cells == 3 || cells == 5 || cells == 2, "\(row)")
        }
    }

    @Test("--json is one JSON object with the machine, every scenario and the targets")
    func theJSONIsWellFormed() async throws {
        let (report, _) = try await Self.quickRun()
        let data = try JSONEncoder().encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys).isSuperset(of: ["date", "build", "machine", "directory", "scenarios", "targets"]))
        let machine = try #require(object["machine"] as? [String: Any])
        #expect((machine["cpus"] as? Int ?? 0) > 0)
        #expect(!(machine["fileSystem"] as? String ?? "").isEmpty)
        #expect((object["scenarios"] as? [Any])?.count == ScenarioID.allCases.count)
        let decoded = try JSONDecoder().decode(BenchReport.self, from: data)
        #expect(decoded.scenarios.flatMap(\.comparisons).count == report.scenarios.flatMap(\.comparisons).count)
    }

    @Test("the scaling chart is well-formed SVG with a line and a point per measured count for each store")
    func theScalingChartIsWellFormed() async throws {
        let (report, _) = try await Self.quickRun()
        let series = ScalingChart.series(in: report)
        #expect(series.map(\.name) == ["file store", "whole-blob store"])
        #expect(series.allSatisfy { $0.points.map(\.count) == Scale.quick.scalingCounts })
        let svg = ScalingChart.svg(series, caption: "a <caption> & more")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == series.count)
        #expect(svg.components(separatedBy: "<circle").count - 1 == series.count * Scale.quick.scalingCounts.count)
        #expect(svg.contains("a &lt;caption&gt; &amp; more"))
        #if canImport(FoundationXML) || canImport(Darwin)
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        #endif
    }

    /// One quick run, in a temp directory of the test's own.
    static func quickRun() async throws -> (BenchReport, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let options = try BenchOptions(arguments: ["--quick", "--dir", directory.path])
        let bench = KeepBench(
            options: options, environment: [:], log: { _ in })
        return (try await bench.run(), directory)
    }
}

@Suite("keep-bench's peak memory of a process")
struct PeakMemoryTests {
    @Test("a process measured through the launcher reports its own peak memory, not its starter's")
    func peakIsTheProcessOwn() throws {
        let directory = try TemporaryDirectory()
        // The starter's peak made large: 256 MiB touched page by page.
        let ballast = [UInt8](repeating: 1, count: 256 << 20)
        let run = try PeakMemory.run("/bin/sh", ["-c", "exit 3"], environment: [:], in: directory.path)
        #expect(ballast.count == 256 << 20)
        #expect(run.status == 3, "the process's own exit status comes back")
        #expect(
            run.kibibytes > 0 && run.kibibytes < 64 << 10, "a shell's peak, not the starter's: \(run.kibibytes) KiB")
    }
}

/// What the start-up rows say of the `keep` they start.
@Suite("keep-bench's keep")
struct KeepLinkingTests {
    @Test(
        "an executable that names libswiftCore.so loads the runtime at each start; one that does not has it linked in")
    func linkingIsReadFromTheBytes() throws {
        let directory = try TemporaryDirectory()
        let dynamic = directory.appending("dynamic"), linked = directory.appending("linked")
        try Data("\u{7F}ELF....libswiftCore.so\0libc.so.6\0".utf8).write(to: URL(fileURLWithPath: dynamic))
        try Data("\u{7F}ELF....libc.so.6\0libswiftCore\0".utf8).write(to: URL(fileURLWithPath: linked))
        #expect(StartupScenario.linking(dynamic).contains("shared libraries"))
        #expect(StartupScenario.linking(linked).contains("linked in"))
        #expect(StartupScenario.linking(directory.appending("missing")).contains("unknown"))
    }
}
