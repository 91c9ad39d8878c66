import Foundation

/// How long a fuzz test runs and from which seed: bounded and fixed in the normal suite,
/// longer on demand.
///
/// Two environment variables, read (never set) when a test asks:
/// - `KEEP_FUZZ_SCALE`: a whole number the default iteration count is multiplied by
///   (`KEEP_FUZZ_SCALE=100` for a run a hundred times longer). Unset, or not a positive
///   number: 1.
/// - `KEEP_FUZZ_SEED`: the seed, a whole number. Unset, or not a number: the test's own
///   fixed seed, so the normal suite is the same on every run.
///
/// A test names the seed in every failure message (``description``), so a failure found by
/// a long run is reproduced with `KEEP_FUZZ_SEED=<seed>` and the same scale.
public struct FuzzPlan: Sendable, CustomStringConvertible {
    /// The seed: `KEEP_FUZZ_SEED` when it is a number, else the test's own; name it in
    /// every failure message.
    public let seed: UInt64
    /// How many iterations to run: the test's count times `KEEP_FUZZ_SCALE`, at most
    /// `Int.max`.
    public let iterations: Int

    /// The plan for a test whose normal run is `iterations` iterations from `seed`.
    public init(iterations: Int, seed: UInt64, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let scale = environment["KEEP_FUZZ_SCALE"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 1
        self.iterations = iterations.multipliedReportingOverflow(by: scale).overflow ? Int.max : iterations * scale
        self.seed = environment["KEEP_FUZZ_SEED"].flatMap { UInt64($0) } ?? seed
    }

    /// A generator starting at the plan's seed.
    public func generator() -> SeededGenerator {
        SeededGenerator(seed: seed)
    }

    /// `seed 1234 (KEEP_FUZZ_SEED=1234), 100000 iterations`: what a failure message names.
    public var description: String {
        "seed \(seed) (KEEP_FUZZ_SEED=\(seed)), \(iterations) iterations"
    }
}
