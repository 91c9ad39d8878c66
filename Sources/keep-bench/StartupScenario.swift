/// `keep chats --json` over 10,000 chats, as a whole process: what a user waits for.
///
/// Skipped until the `keep` command lands on main: its target is still a placeholder,
/// so there is no command to start.
struct StartupScenario: Scenario {
    let id = ScenarioID.startup

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        .skipped(
            "the keep command has not landed on main yet (Sources/keep is a placeholder); this scenario starts it once it has"
        )
    }
}
