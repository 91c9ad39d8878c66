import Foundation

// keep-bench: the benchmarks, side by side with their baselines. See `keep-bench --help`.
let arguments = Array(CommandLine.arguments.dropFirst())
// Started by the bench itself to measure one process's peak memory (see PeakMemory).
if arguments.count >= 2, arguments[0] == PeakMemory.launcherFlag {
    exit(PeakMemory.launch(result: arguments[1], Array(arguments.dropFirst(2))))
}
// A history for profiling by hand: `keep-bench --lay-down realistic 40000 DATA_HOME`.
if arguments.count == 4, arguments[0] == ChatFixtures.layDownFlag {
    exit(await ChatFixtures.layDown(arguments: Array(arguments.dropFirst())))
}
exit(
    await KeepBench.main(
        arguments: arguments, environment: ProcessInfo.processInfo.environment))
