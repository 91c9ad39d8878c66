import KeepCore

/// Which server, model and role one question is asked with, as `-s`, `-m` and `-r` (and the
/// chat's `/server`, `/model`, `/role`) chose them over the servers file (``ServerBook``).
package struct TurnChoice: Sendable, Equatable {
    /// The server asked.
    package let server: ServerProfile
    /// The model asked, when one was chosen; `nil` for the server's own.
    package let model: String?
    /// The role asked in, when one was chosen.
    package let role: RoleProfile?
    /// Whether the user named the server (`-s`, `SERVER/MODEL`, an alias, a role's model):
    /// then a server answers even when the `engineId` setting is `echo`.
    package let named: Bool

    /// The choice of `server`, asked for `model` in `role`.
    package init(server: ServerProfile, model: String? = nil, role: RoleProfile? = nil, named: Bool = false) {
        self.server = server
        self.model = model
        self.role = role
        self.named = named
    }
}
