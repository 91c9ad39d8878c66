import KeepPorts
import KeepSealed

/// What an owner did with its kept data at launch: readings pruned by the retention,
/// preferences rewritten in their current shape, and what it could not read (left as it
/// was, for the user to be told).
package struct LaunchReport: Sendable, Equatable {
    /// The module whose kept data this is.
    package let owner: KeptOwner
    /// Readings deleted because they were older than the retention allows.
    package let readingsPruned: Int
    /// The kinds of preference rewritten from an older shape to the current one.
    package let preferencesUpgraded: [String]
    /// What could not be read; each was left as it was.
    package let problems: [KeptError]

    /// What `owner` did at launch.
    package init(owner: KeptOwner, readingsPruned: Int, preferencesUpgraded: [String], problems: [KeptError]) {
        self.owner = owner
        self.readingsPruned = readingsPruned
        self.preferencesUpgraded = preferencesUpgraded
        self.problems = problems
    }
}
