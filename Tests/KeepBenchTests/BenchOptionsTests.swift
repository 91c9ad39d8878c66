import Testing

@testable import keep_bench

/// The command line: what keep-bench takes, and what it refuses by name.
@Suite("keep-bench's command line")
struct BenchOptionsTests {
    @Test("with no arguments every scenario runs at full scale, printing tables")
    func theDefaults() throws {
        let options = try BenchOptions(arguments: [])
        #expect(options.scenarios == ScenarioID.allCases)
        #expect(options.scale == .full)
        #expect(!options.json && !options.help)
        #expect(options.directory == nil)
    }

    @Test("the options it knows are taken as given")
    func knownOptionsAreTaken() throws {
        let options = try BenchOptions(arguments: [
            "--quick", "--json", "--scenario", "sealing,durable-write", "--scenario", "scaling", "--repetitions", "7",
            "--chart", "/some/where/chart.svg", "--dir", "/some/disk",
        ])
        // Scenarios run in their own order, whatever order they were asked in.
        #expect(options.scenarios == [.durableWrite, .scaling, .sealing])
        #expect(options.json)
        #expect(options.scale.isQuick)
        #expect(options.scale.repetitions == 7)
        #expect(options.scale.boundedRepetitions == Scale.quick.boundedRepetitions)
        #expect(options.chartPath == "/some/where/chart.svg")
        #expect(options.directory == "/some/disk")
        #expect(try BenchOptions(arguments: ["--repetitions", "1"]).scale.boundedRepetitions == 1)
    }

    @Test(
        "an argument it cannot use is a usage error that names it",
        arguments: [
            (["--fast"], "--fast"), (["--scenario", "durable"], "durable"), (["--scenario"], "--scenario"),
            (["--repetitions", "0"], "--repetitions"), (["--repetitions", "ten"], "ten"),
            (["--repetitions", "10001"], "10001"), (["--chart", "--json"], "--chart"), (["--dir", ""], "--dir"),
        ])
    func anUnusableArgumentIsAUsageError(_ arguments: [String], _ named: String) throws {
        let error = #expect(throws: BenchError.self) { try BenchOptions(arguments: arguments) }
        #expect(error?.code == .usage)
        #expect(error?.description.contains(named) == true, "\(String(describing: error))")
    }

    @Test("--help lists every scenario by the name --scenario takes")
    func helpListsEveryScenario() throws {
        #expect(try BenchOptions(arguments: ["--help"]).help)
        for id in ScenarioID.allCases {
            #expect(BenchOptions.usage.contains("  \(id.rawValue) "))
        }
    }
}
