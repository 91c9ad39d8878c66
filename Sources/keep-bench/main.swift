import Foundation

// keep-bench: the benchmarks, side by side with their baselines. See `keep-bench --help`.
let arguments = Array(CommandLine.arguments.dropFirst())
// Started by the bench itself to measure one process's peak memory (see PeakMemory).
if arguments.count >= 2, arguments[0] == PeakMemory.launcherFlag {
    exit(PeakMemory.launch(result: arguments[1], Array(arguments.dropFirst(2))))
}
exit(
    await KeepBench.main(
        arguments: arguments, environment: ProcessInfo.processInfo.environment))
