/// One scenario of the bench: it prepares its stores and baselines in a directory of its
/// own, and hands back the comparisons to measure, or the reason it cannot run here.
protocol Scenario: Sendable {
    var id: ScenarioID { get }

    /// Sets up everything the comparisons need under `directory` (empty, on the disk the
    /// data root is on). Throws when a store or baseline cannot be set up.
    func prepare(in directory: String, scale: Scale) async throws -> Preparation
}

/// What a scenario's preparation gives the runner.
enum Preparation: Sendable {
    /// Measure these; then call `finish` (to remove what lives outside the directory,
    /// such as keyring items).
    /// `facts` are figures measured once while preparing (a peak memory, a file's size).
    case ready([Comparison], facts: [Fact] = [], finish: @Sendable () async -> Void = {})
    /// The scenario cannot run in this build or session, for this reason.
    case skipped(String)
}
