import Foundation

/// What the command line asks keep-bench to do.
///
/// `init(arguments:)` refuses, with a ``BenchError/Code/usage`` error naming the argument,
/// anything it does not understand: an unknown option or scenario, a missing or
/// non-numeric value, a repetition count outside 1–10,000. It never guesses.
struct BenchOptions: Sendable, Equatable {
    /// The scenarios to run, in the order ``ScenarioID`` lists them.
    var scenarios: [ScenarioID] = ScenarioID.allCases
    /// The run's size: full, or `--quick`; `--repetitions` changes its sample count.
    var scale: Scale = .full
    /// Print the report as JSON instead of tables.
    var json = false
    /// Where the scaling scenario's SVG chart goes.
    var chartPath = "keep-bench-scaling.svg"
    /// A directory to work under instead of the one beside the data root.
    var directory: String?
    /// A Markdown file whose marked region gets the report's tables (``MarkedRegion``).
    var updatePath: String?
    /// Print the usage and do nothing else.
    var help = false

    static let usage = """
        usage: keep-bench [--quick] [--json] [--scenario NAME[,NAME...]]... [--repetitions N]
                          [--chart PATH] [--dir PATH] [--update PATH]

        Runs each scenario against its baselines in one process, interleaved, and prints
        the median, the p10-p90 spread and the ratio to each comparison's baseline.
        Build it in release: swift run -c release keep-bench
        The secrets scenario needs a Secret Service: scripts/with-keyring swift run -c release keep-bench

          --quick            a seconds-long run of every code path (figures not for comparing)
          --json             the report as JSON on standard output
          --scenario NAMES   only these scenarios (repeatable, or comma-separated)
          --repetitions N    samples per contender (default 60; --quick 3)
          --chart PATH       where the scaling chart (SVG) goes (default keep-bench-scaling.svg)
          --dir PATH         work in a fresh directory under PATH, not beside the data root
          --update PATH      also write the tables into the Markdown file PATH, replacing the
                             lines between its <!-- keep-bench tables: begin/end --> markers
          --help             this text

        scenarios:
        \(ScenarioID.allCases.map { "  \($0.rawValue.padding(toLength: 19, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))
        """

    init() {}

    /// The options in `arguments` (without the program's name).
    init(arguments: [String]) throws(BenchError) {
        var chosen: [ScenarioID] = []
        var repetitions: Int?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": scale = .quick
            case "--json": json = true
            case "--help", "-h": help = true
            case "--scenario":
                for name in try Self.value(of: argument, from: &remaining).split(separator: ",") {
                    guard let id = ScenarioID(rawValue: String(name)) else {
                        throw .usage(
                            "--scenario",
                            "no scenario is called \"\(name)\"; the scenarios are \(ScenarioID.allCases.map(\.rawValue).joined(separator: ", "))"
                        )
                    }
                    if !chosen.contains(id) { chosen.append(id) }
                }
            case "--repetitions":
                let text = try Self.value(of: argument, from: &remaining)
                guard let count = Int(text), (1...10_000).contains(count) else {
                    throw .usage("--repetitions", "\"\(text)\" is not a whole number from 1 to 10000")
                }
                repetitions = count
            case "--chart": chartPath = try Self.value(of: argument, from: &remaining)
            case "--dir": directory = try Self.value(of: argument, from: &remaining)
            case "--update": updatePath = try Self.value(of: argument, from: &remaining)
            default:
                throw .usage(argument, "not an option keep-bench knows; see keep-bench --help")
            }
        }
        if !chosen.isEmpty { scenarios = ScenarioID.allCases.filter(chosen.contains) }
        if let repetitions { scale = scale.with(repetitions: repetitions) }
    }

    /// The value after `option`; a usage error when there is none or it is empty.
    private static func value(
        of option: String, from remaining: inout ArraySlice<String>
    ) throws(BenchError)
        -> String
    {
        guard let value = remaining.popFirst(), !value.isEmpty, !value.hasPrefix("--") else {
            throw .usage(option, "needs a value")
        }
        return value
    }
}
