import Foundation
import KeepPorts

/// The servers `keep` can ask, the model aliases and the roles: one hand-editable JSON
/// object at `settings`/`profiles`, beside the settings file and read with the same
/// suspicion.
///
/// ```json
/// {
///   "aliases" : { "fast" : "local/qwen3" },
///   "default" : "local",
///   "roles" : { "coder" : { "model" : "fast", "system" : "Answer with code.", "temperature" : 0.2 } },
///   "servers" : {
///     "claude" : { "key" : "anthropic", "model" : "claude-sonnet-4-5", "protocol" : "anthropic",
///                  "url" : "https://api.anthropic.com/v1" },
///     "local" : { "contextTokens" : 8192, "url" : "http://127.0.0.1:8080/v1" }
///   },
///   "version" : 1
/// }
/// ```
///
/// Every entry is checked field by field when it is read: an entry that breaks a rule (a URL
/// that is not http(s), an unknown protocol or key slot, an empty model) is not used and is
/// listed in ``refusals``, and so is a field of the wrong kind; a server's `protocol` defaults
/// to `openai`, its `key` to the protocol's slot (account `default`), its `model` to
/// `default`. A change rewrites only the entry it changes: a refused entry, an unknown field
/// and an unknown key stay in the file as they were written. A file that is not a JSON
/// object is never written over (``ProfilesError/unreadable(reason:)``). It never holds a
/// key: a server names the keychain slot its key is in.
public struct Profiles: Sendable, Equatable {
    /// Where the profiles live.
    public static let key = StorageKey(.settings, "profiles")
    /// The format this build writes.
    public static let version = 1
    /// The name the carried-over server gets: the one today's `baseUrl` and `model` described.
    public static let defaultName = "default"

    /// The document as read, unknown fields and refused entries included.
    private var fields: [String: JSONValue]

    /// No servers, aliases or roles.
    public init() {
        fields = [:]
    }

    /// The profiles `text` holds; throws ``ProfilesError/unreadable(reason:)`` when it is not
    /// a JSON object (never quoting it).
    public init(text: String) throws(ProfilesError) {
        do {
            fields = try JSONValue.object(parsing: text)
        } catch {
            throw .unreadable(reason: error.reason)
        }
    }

    /// The file's text: the document, keys sorted, the version set.
    public func text() throws(ProfilesError) -> String {
        var fields = fields
        fields["version"] = .number(Double(Self.version))
        do {
            return try JSONValue.text(of: fields)
        } catch {
            throw .unreadable(reason: "it cannot be written as JSON")
        }
    }

    // MARK: - Names

    /// What a server's, an alias's or a role's name may be: 1 to 64 of `a-z 0-9 . _ -`,
    /// starting with a letter or digit (never `/`, which separates a server from a model).
    public static func nameProblem(_ name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (1...64).contains(name.count), name.allSatisfy(allowed.contains),
            let first = name.first, first.isLetter || first.isNumber
        else {
            return "a name is 1 to 64 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit"
        }
        return nil
    }

    // MARK: - Servers

    /// The usable servers, by name.
    public var servers: [ServerProfile] {
        section("servers").compactMap { name, value in try? Self.server(name, value).get() }.sorted {
            $0.name < $1.name
        }
    }

    /// The server called `name`, when it is usable.
    public func server(_ name: String) -> ServerProfile? {
        section("servers")[name].flatMap { try? Self.server(name, $0).get() }
    }

    /// The name of the server asked when none is named (`keep servers use`): the `default`
    /// field, else `default`.
    public var defaultServer: String {
        if case .string(let name)? = fields["default"], Self.nameProblem(name) == nil { return name }
        return Self.defaultName
    }

    /// Adds `server`, or replaces the one of its name (the fields it does not know, kept).
    public mutating func set(_ server: ServerProfile) {
        var entry: [String: JSONValue] = [:]
        if case .object(let old)? = section("servers")[server.name] { entry = old }
        entry["url"] = .string(server.url)
        entry["protocol"] = .string(server.wire.rawValue)
        entry["key"] = .string(server.keyText)
        entry["model"] = .string(server.model)
        entry["ca"] = server.authority.map(JSONValue.string)
        entry["contextTokens"] = server.contextTokens.map { .number(Double($0)) }
        edit("servers") { $0[server.name] = .object(entry.compactMapValues { $0 }) }
    }

    /// Removes the server `name` (usable or not); `false` when there is none.
    public mutating func removeServer(_ name: String) -> Bool {
        guard section("servers")[name] != nil else { return false }
        edit("servers") { $0[name] = nil }
        return true
    }

    /// Makes `name` the server asked when none is named.
    public mutating func useServer(_ name: String) {
        fields["default"] = .string(name)
    }

    /// Whether an entry called `name` is in the servers section, usable or not.
    public func hasServerEntry(_ name: String) -> Bool {
        section("servers")[name] != nil
    }

    // MARK: - Aliases

    /// The usable aliases: each name and the `SERVER/MODEL` it stands for.
    public var aliases: [(name: String, target: String)] {
        section("aliases").compactMap { name, value in
            (try? Self.alias(name, value).get()).map { (name, $0) }
        }.sorted { $0.name < $1.name }
    }

    /// The `SERVER/MODEL` the alias `name` stands for, when it is usable.
    public func alias(_ name: String) -> String? {
        section("aliases")[name].flatMap { try? Self.alias(name, $0).get() }
    }

    /// Sets the alias `name` to `target` (`SERVER/MODEL`).
    public mutating func setAlias(_ name: String, _ target: String) {
        edit("aliases") { $0[name] = .string(target) }
    }

    /// Removes the alias `name`; `false` when there is none.
    public mutating func removeAlias(_ name: String) -> Bool {
        guard section("aliases")[name] != nil else { return false }
        edit("aliases") { $0[name] = nil }
        return true
    }

    // MARK: - Roles

    /// The usable roles, by name.
    public var roles: [RoleProfile] {
        section("roles").compactMap { name, value in try? Self.role(name, value).get() }.sorted {
            $0.name < $1.name
        }
    }

    /// The role `name`, when it is usable.
    public func role(_ name: String) -> RoleProfile? {
        section("roles")[name].flatMap { try? Self.role(name, $0).get() }
    }

    /// Adds `role`, or replaces the one of its name (the fields it does not know, kept).
    public mutating func set(_ role: RoleProfile) {
        var entry: [String: JSONValue] = [:]
        if case .object(let old)? = section("roles")[role.name] { entry = old }
        entry["system"] = .string(role.system)
        entry["model"] = role.model.map(JSONValue.string)
        entry["temperature"] = role.temperature.map(JSONValue.number)
        edit("roles") { $0[role.name] = .object(entry.compactMapValues { $0 }) }
    }

    /// Removes the role `name`; `false` when there is none.
    public mutating func removeRole(_ name: String) -> Bool {
        guard section("roles")[name] != nil else { return false }
        edit("roles") { $0[name] = nil }
        return true
    }

    // MARK: - Refusals

    /// Every entry that is not used, and why, in file order (servers, aliases, roles).
    public var refusals: [ProfileRefusal] {
        var found: [ProfileRefusal] = []
        for name in ["servers", "aliases", "roles"] {
            if let value = fields[name], !Self.isObject(value) {
                found.append(ProfileRefusal(entry: name, reason: "it is not a JSON object"))
            }
        }
        if let value = fields["default"], !Self.isName(value) {
            found.append(ProfileRefusal(entry: "default", reason: "it is not a server's name"))
        }
        func collect<T>(_ section: String, _ read: (String, JSONValue) -> Result<T, ProfileRefusal.Reason>) {
            for (name, value) in self.section(section).sorted(by: { $0.key < $1.key }) {
                if case .failure(let reason) = read(name, value) {
                    found.append(ProfileRefusal(entry: "\(section).\(name)", reason: reason.text))
                }
            }
        }
        collect("servers", Self.server)
        collect("aliases", Self.alias)
        collect("roles", Self.role)
        return found
    }

    // MARK: - Reading an entry

    /// The top-level field `name` as read.
    func fieldValue(_ name: String) -> JSONValue? { fields[name] }

    private func section(_ name: String) -> [String: JSONValue] {
        guard case .object(let entries)? = fields[name] else { return [:] }
        return entries
    }

    private mutating func edit(_ name: String, _ change: (inout [String: JSONValue]) -> Void) {
        var entries = section(name)
        change(&entries)
        fields[name] = .object(entries)
    }

    private static func isObject(_ value: JSONValue) -> Bool {
        if case .object = value { return true }
        return false
    }

    private static func isName(_ value: JSONValue) -> Bool {
        if case .string(let name) = value { return nameProblem(name) == nil }
        return false
    }

    /// The server entry `value` under `name`, or why it is not usable.
    static func server(_ name: String, _ value: JSONValue) -> Result<ServerProfile, ProfileRefusal.Reason> {
        if let problem = nameProblem(name) { return .failure(.init(problem)) }
        guard case .object(let entry) = value else { return .failure(.init("a server is a JSON object")) }
        guard case .string(let url)? = entry["url"] else { return .failure(.init("it has no url")) }
        if let problem = ServerURLRule.problem(in: url) { return .failure(.init("its url is refused: \(problem)")) }
        var wire = ServerProtocol.openai
        if let field = entry["protocol"] {
            guard case .string(let text) = field, let named = ServerProtocol(rawValue: text) else {
                return .failure(.init("its protocol must be \(ServerProtocol.described)"))
            }
            wire = named
        }
        var key = SecretRef(wire.defaultSlot)
        if let field = entry["key"] {
            guard case .string(let text) = field else { return .failure(.init("its key must be SLOT[/ACCOUNT]")) }
            switch ServerProfile.key(parsing: text) {
            case .success(let ref): key = ref
            case .failure(let reason): return .failure(reason)
            }
        }
        var model = "default"
        if let field = entry["model"] {
            guard case .string(let text) = field, !text.allSatisfy(\.isWhitespace) else {
                return .failure(.init("its model must be a non-empty text"))
            }
            model = text
        }
        var authority: String?
        if let field = entry["ca"] {
            guard case .string(let path) = field, path.hasPrefix("/") else {
                return .failure(.init("its ca must be the absolute path of a PEM file"))
            }
            authority = path
        }
        var budget: Int?
        if let field = entry["contextTokens"] {
            guard case .number(let number) = field, let whole = Int(exactly: number),
                (1...ServerProfile.contextTokensLimit).contains(whole)
            else {
                return .failure(
                    .init("its contextTokens must be a whole number from 1 to \(ServerProfile.contextTokensLimit)"))
            }
            budget = whole
        }
        return .success(
            ServerProfile(
                name: name, url: url, wire: wire, key: key, model: model, authority: authority,
                contextTokens: budget))
    }

    /// The alias `value` under `name` (its `SERVER/MODEL`), or why it is not usable.
    static func alias(_ name: String, _ value: JSONValue) -> Result<String, ProfileRefusal.Reason> {
        if let problem = nameProblem(name) { return .failure(.init(problem)) }
        guard case .string(let target) = value else { return .failure(.init("an alias is a text, SERVER/MODEL")) }
        if let problem = aliasTargetProblem(target) { return .failure(.init(problem)) }
        return .success(target)
    }

    /// What is wrong with `target` as an alias's `SERVER/MODEL`, or `nil`.
    public static func aliasTargetProblem(_ target: String) -> String? {
        guard let slash = target.firstIndex(of: "/") else { return "an alias stands for SERVER/MODEL" }
        let server = String(target[..<slash])
        let model = target[target.index(after: slash)...]
        if let problem = nameProblem(server) { return "its server: \(problem)" }
        guard !model.allSatisfy(\.isWhitespace) else { return "its model is empty" }
        return nil
    }

    /// The role entry `value` under `name`, or why it is not usable.
    static func role(_ name: String, _ value: JSONValue) -> Result<RoleProfile, ProfileRefusal.Reason> {
        if let problem = nameProblem(name) { return .failure(.init(problem)) }
        guard case .object(let entry) = value else { return .failure(.init("a role is a JSON object")) }
        guard case .string(let system)? = entry["system"] else { return .failure(.init("it has no system text")) }
        var model: String?
        if let field = entry["model"] {
            guard case .string(let text) = field, !text.allSatisfy(\.isWhitespace) else {
                return .failure(.init("its model must be a non-empty text"))
            }
            model = text
        }
        var temperature: Double?
        if let field = entry["temperature"] {
            guard case .number(let number) = field, (0...2).contains(number) else {
                return .failure(.init("its temperature must be a number from 0 to 2"))
            }
            temperature = number
        }
        return .success(RoleProfile(name: name, system: system, model: model, temperature: temperature))
    }
}
