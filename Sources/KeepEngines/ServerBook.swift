import KeepCore
import KeepPorts

/// The servers, aliases and roles this run asks with: the servers file (``Profiles``) and,
/// when the file holds no `default` server (its carry-over failed this launch), the one the
/// old settings describe, so a failed carry-over never loses the server a user had.
package struct ServerBook: Sendable {
    /// The servers file as read.
    package let profiles: Profiles
    /// The server today's `baseUrl`, `model`, `keySlot` and `keyAccount` settings describe.
    package let carried: ServerProfile

    /// The book of `profiles`, with `carried` standing in for a missing `default`.
    package init(profiles: Profiles, carried: ServerProfile) {
        self.profiles = profiles
        self.carried = carried
    }

    /// Every usable server, the carried one included when the file has no `default`.
    package var servers: [ServerProfile] {
        var all = profiles.servers
        if !profiles.hasServerEntry(carried.name) { all.append(carried) }
        return all.sorted { $0.name < $1.name }
    }

    /// The server `name`, or `nil` when there is no usable one.
    package func server(_ name: String) -> ServerProfile? {
        if let server = profiles.server(name) { return server }
        return name == carried.name && !profiles.hasServerEntry(name) ? carried : nil
    }

    /// The server asked when none is named.
    package var defaultServer: ServerProfile? { server(profiles.defaultServer) }

    /// Why a choice cannot be made: an unknown server, alias target or role, in one line.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    /// The choice `-s server`, `-m model` and `-r role` make.
    ///
    /// `model` is an alias (its `SERVER/MODEL`), `SERVER/MODEL` where SERVER names a server
    /// (a model whose own name holds a slash, `meta-llama/Llama-3`, is left whole when its
    /// first part names none), or a model of the chosen server. A role gives its model when
    /// `-m` gives none. `-s` and a `-m SERVER/MODEL` naming different servers is refused; a
    /// role's model at another server than `-s` names gives way to that server's own.
    package func choose(server: String?, model: String?, role: String?) throws(Refusal) -> TurnChoice {
        var chosenRole: RoleProfile?
        if let role {
            guard let found = profiles.role(role) else {
                let names = profiles.roles.map(\.name)
                throw Refusal(
                    message: "there is no role \(StorageError.quoted(role))"
                        + (names.isEmpty
                            ? "; keep roles add NAME --system TEXT makes one"
                            : "; roles: "
                                + names.joined(separator: ", ")))
            }
            chosenRole = found
        }
        var spec = model ?? chosenRole?.model
        var serverName = server
        var named = server != nil
        if let alias = spec.flatMap(profiles.alias) { spec = alias }
        if let text = spec, let slash = text.firstIndex(of: "/"), self.server(String(text[..<slash])) != nil {
            let prefix = String(text[..<slash])
            if let serverName, serverName != prefix {
                guard model == nil else {
                    throw Refusal(message: "-s \(serverName) and -m \(text) name different servers; give one")
                }
                // The role's model is at another server than the one named: the server named wins.
                spec = nil
            } else {
                serverName = prefix
                spec = String(text[text.index(after: slash)...])
                named = true
            }
        }
        let name = serverName ?? profiles.defaultServer
        guard let chosen = self.server(name) else {
            let names = servers.map(\.name)
            throw Refusal(
                message: "there is no server \(StorageError.quoted(name))"
                    + (names.isEmpty ? "" : "; servers: " + names.joined(separator: ", "))
                    + " (keep servers add NAME URL adds one)")
        }
        return TurnChoice(server: chosen, model: spec, role: chosenRole, named: named)
    }
}
