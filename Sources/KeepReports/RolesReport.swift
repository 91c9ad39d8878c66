import KeepCore

/// What `keep roles` shows (and prints with `--json`); `keep roles show NAME --json` prints
/// one of its roles.
///
/// ```json
/// { "refused" : [],
///   "roles" : [ { "model" : "fast", "name" : "coder", "system" : "Answer with code only.", "temperature" : 0.2 } ] }
/// ```
///
/// `model` and `temperature` are left out when the role has none.
package struct RolesReport: Codable, Sendable, Equatable {
    /// One role.
    package struct Role: Codable, Sendable, Equatable {
        package let name: String
        package let system: String
        package let model: String?
        package let temperature: Double?

        /// The report of `role`.
        package init(_ role: RoleProfile) {
            name = role.name
            system = role.system
            model = role.model
            temperature = role.temperature
        }
    }

    package let roles: [Role]
    package let refused: [ServersReport.Refused]

    /// The report of `profiles`.
    package init(_ profiles: Profiles) {
        roles = profiles.roles.map(Role.init)
        refused = ServersReport.refusals(profiles, in: "roles")
    }
}
