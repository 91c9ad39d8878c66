import Foundation

// keep-bench: the benchmarks, side by side with their baselines. See `keep-bench --help`.
exit(
    await KeepBench.main(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
