import KeepCore

/// What `keep aliases` shows (and prints with `--json`).
///
/// ```json
/// { "aliases" : [ { "name" : "fast", "target" : "local/qwen3" } ], "refused" : [] }
/// ```
package struct AliasesReport: Codable, Sendable, Equatable {
    /// One alias and the `SERVER/MODEL` it stands for.
    package struct Alias: Codable, Sendable, Equatable {
        package let name: String
        package let target: String
    }

    package let aliases: [Alias]
    package let refused: [ServersReport.Refused]

    /// The report of `profiles`.
    package init(_ profiles: Profiles) {
        aliases = profiles.aliases.map { Alias(name: $0.name, target: $0.target) }
        refused = ServersReport.refusals(profiles, in: "aliases")
    }
}
