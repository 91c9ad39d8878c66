import Foundation
import KeepApp
import KeepCLI
import KeepCore
import KeepEngines
import KeepKeptData
import KeepPorts
import KeepReports

/// `keep engines`: the servers keep has read, their kept readings shown at once with
/// their age, then the current server read afresh; choosing a model from a fresh list;
/// forgetting a server; how long readings are kept.
enum EnginesCommand {
    static let command = Command(
        "engines", summary: "Show the servers keep has read: kept readings at once, then the current one afresh",
        help: """
            Each server's newest model list and health are kept sealed in <data root>/kept.sqlite and shown at
            once with their age; then the default server (keep servers) is read again (GET {url}/models, with
            its key when one is set). Choosing a model from a list waits for a fresh one.
            """,
        examples: [
            "keep engines": "Show each server's kept readings, then read the current one:"
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json]), subcommands: [use, forget, retention], run: list)

    static let use = Command(
        "use", summary: "Make MODEL the remote engine's model, once a fresh reading of the server lists it",
        examples: [
            "keep engines use qwen2.5-7b-instruct": "Answer with a model the server lists:"
        ],
        arguments: ArgumentParser(required: ["MODEL"]), run: useModel)

    static let forget = Command(
        "forget", summary: "Delete everything kept about the server at URL (readings, markers, preferences)",
        examples: [
            "keep engines forget http://gpu-box.lan:8000/v1": "Delete everything kept about a server:"
        ],
        arguments: ArgumentParser(required: ["URL"]), run: forgetServer)

    static let retention = Command(
        "retention", summary: "Show how long readings are kept, or set it: DAYS (1-365) or forever",
        examples: [
            "keep engines retention 7": "Keep readings for a week:"
        ],
        arguments: ArgumentParser(optional: ["DAYS|forever"]),
        run: showOrSetRetention)

    // MARK: - List

    static func list(_ invocation: Invocation) async throws {
        let kept = try await keptData(invocation)
        let core = try await invocation.core()
        let defaultServer = await self.defaultServer(core, invocation)
        let current = defaultServer?.address
        let engines = kept.engines
        var servers = (try? await engines.servers()) ?? []
        if let current, !servers.contains(current) { servers.insert(current, at: 0) }
        let retention = try? await engines.retention()
        var readings: [ServerReadings] = []
        let console = invocation.console
        if !invocation.json {
            let kept =
                retention.map { "readings are kept \($0)" }
                ?? "the kept retention cannot be read, so no reading is deleted for its age"
            console.out("Servers (\(kept)):\n")
        }
        for server in servers {
            let keptReadings = try await engines.kept(server)
            guard let defaultServer, server == current else {
                readings.append(keptReadings)
                if !invocation.json { console.show("  \(server)\n    kept: \(summary(keptReadings))\n") }
                continue
            }
            if !invocation.json { console.show("* \(server) (baseUrl)\n    kept: \(summary(keptReadings))\n") }
            let fresh = try await refresh(defaultServer, engines, core, invocation)
            readings.append(fresh)
            if !invocation.json { console.show(freshLines(fresh)) }
        }
        if invocation.json {
            try invocation.printJSON(
                EnginesReport(
                    kept: kept.status, retention: retention, readings: readings, current: current, now: Date()))
        } else if servers.isEmpty {
            console.out("  none yet: set baseUrl to a server (keep settings set baseUrl URL)\n")
        }
    }

    // MARK: - Use, forget, retention

    static func useModel(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        let kept = try await keptData(invocation)
        let core = try await invocation.core()
        guard let defaultServer = await defaultServer(core, invocation) else {
            throw CommandFailure.failure("the baseUrl setting names no server to choose a model from")
        }
        let server = defaultServer.address
        let readings = try await refresh(defaultServer, kept.engines, core, invocation)
        let model: String
        do {
            model = try kept.engines.modelToUse(name, from: readings)
        } catch {
            let now = readings.health.flatMap { $0.value.problem }.map { " (reading it now: \($0))" } ?? ""
            throw CommandFailure.failure("\(error)\(now)")
        }
        let settings = core.settings
        let asked = defaultServer.profile.name
        if asked == Profiles.defaultName {
            try await SettingsCommand.changing(settings, invocation) { () async throws(SettingsError) in
                try await settings.set(SettingRegistry.model.key, .string(model))
            }
        }
        try await ServersCommand.setModel(model, of: asked, invocation)
        var text = "The remote engine now asks \(server) for \(Console.field(model)).\n"
        if core.engineId != RemoteEngine.engineId {
            text += "(The engine in use is \(core.engineId): `keep settings set engineId remote` to use it.)\n"
        }
        invocation.console.show(text)
    }

    static func forgetServer(_ invocation: Invocation) async throws {
        let kept = try await keptData(invocation, telling: true)
        let server = try ServerAddress(invocation.positional(0) ?? "")
        var deleted = 0
        for owner in kept.forgetServers {
            deleted += try await owner.forget(server)
        }
        invocation.console.show(
            deleted == 0
                ? "Nothing was kept about \(server).\n"
                : "Forgot \(server): \(deleted) kept \(deleted == 1 ? "row" : "rows") deleted.\n")
    }

    static func showOrSetRetention(_ invocation: Invocation) async throws {
        // A retention that is not one is refused first, whatever is kept.
        let asked = try invocation.positional(0).map { text in try Retention(parsing: text) }
        let engines = try await keptData(invocation, telling: true).engines
        guard let retention = asked else {
            let retention = try await engines.retention()
            invocation.console.out("Readings are kept \(retention).\n")
            return
        }
        let pruned = try await engines.setRetention(retention)
        let deleted = pruned == 0 ? "" : " (\(pruned) older \(pruned == 1 ? "reading" : "readings") deleted)"
        invocation.console.out("Readings are now kept \(retention)\(deleted).\n")
    }

    // MARK: - Shared with keep whatsnew

    /// Kept data for this run; a warning when nothing is kept, saying why.
    ///
    /// When what is kept cannot be read this time (the keyring is locked or does not
    /// answer), the command cannot tell what is kept: it fails with that line, showing and
    /// changing nothing, rather than answer from an empty memory store as if nothing were
    /// kept. With `telling` (a command whose answer is about what is kept: the retention,
    /// forgetting), it also fails when nothing is kept here at all, or kept data could not
    /// be opened: a default shown as the setting, or "nothing was kept" with rows on disk,
    /// would not be true.
    static func keptData(_ invocation: Invocation, telling: Bool = false) async throws(CommandFailure) -> KeptData {
        let kept: KeptData
        do {
            kept = try await invocation.composition.kept()
        } catch {
            throw .because(error)
        }
        switch kept.status {
        case .kept, .notYet:
            return kept
        case .notKept(let reason) where reason.code == .keyStoreUnavailable:
            throw .failure(cannotTell(reason.keyStoreError))
        case .failed:
            if telling { throw .failure("cannot tell what is kept: \(kept.status.summary); nothing was changed") }
        case .notKept:
            if telling { throw .failure("\(kept.status.summary), so there is nothing to show or change here") }
        }
        invocation.console.warning(kept.status.summary)
        return kept
    }

    /// `cannot tell: the keyring is locked; …`: one line for a kept-data command whose key
    /// the keyring would not give this time.
    static func cannotTell(_ error: SecretsError?) -> String {
        let locked = error?.code == .locked
        let why =
            locked
            ? "the keyring is locked"
            : "the key that seals kept data could not be read\(error.map { " (\($0))" } ?? "")"
        let fix = locked ? " (unlock it, then retry)" : ""
        return "cannot tell: \(why); what keep has kept is neither shown nor changed until it can be read\(fix)"
    }

    /// The default server (`keep servers use`), from the server book read once, and its
    /// address.
    struct DefaultServer {
        let profile: ServerProfile
        let address: ServerAddress
    }

    /// The default server; a warning, and `nil`, when there is no usable one.
    static func defaultServer(_ core: AppCore, _ invocation: Invocation) async -> DefaultServer? {
        guard let server = await invocation.composition.serverBook(core).defaultServer else {
            invocation.console.warning("there is no default server to read (keep servers)")
            return nil
        }
        do {
            return DefaultServer(profile: server, address: try ServerAddress(server.url))
        } catch {
            invocation.console.warning("the server \(server.name) is not read: \(error)")
            return nil
        }
    }

    /// Reads `server` afresh through `engines`: with its key (a keychain that cannot be asked
    /// is a warning, and the server is read without one), its authority and its protocol.
    static func refresh(
        _ server: DefaultServer, _ engines: EnginesKeeper, _ core: AppCore, _ invocation: Invocation
    ) async throws -> ServerReadings {
        var apiKey: String?
        do {
            apiKey = try await readSecret(secrets: invocation.composition.secrets().secrets, ref: server.profile.key)
        } catch {
            invocation.console.warning("the server is read without a key: \(error)")
        }
        return try await engines.refresh(
            server.address, apiKey: apiKey, keyOverHttpHosts: SettingRegistry.keyOverHttpHostsIn(core.settings),
            authority: server.profile.authority, wire: server.profile.wire)
    }

    // MARK: - Words

    /// `2 models, read 3 h ago; answered in 12 ms (llama.cpp)`, or `nothing yet`.
    static func summary(_ readings: ServerReadings) -> String {
        let now = Date()
        let parts = [readings.models.map { models($0, now) }, readings.health.map { health($0, now) }]
        let said = parts.compactMap { $0 }
        return said.isEmpty ? "nothing yet" : said.joined(separator: "; ")
    }

    static func models(_ reading: KeptReading<ModelList>, _ now: Date) -> String {
        let count = reading.value.models.count
        return "\(count) \(count == 1 ? "model" : "models"), read \(reading.age(now: now))"
    }

    static func health(_ reading: KeptReading<ServerHealth>, _ now: Date) -> String {
        let health = reading.value
        let read = ", read \(reading.age(now: now))"
        guard health.reachable else { return "no answer (\(health.problem ?? "unknown"))" + read }
        if let problem = health.problem { return "answered, but \(problem)" + read }
        let says = health.says.map { " (\(Console.field($0)))" } ?? ""
        return "answered in \(health.latencyMilliseconds ?? 0) ms\(says)" + read
    }

    /// What the fresh reading of the current server says, and what can be done with it.
    static func freshLines(_ readings: ServerReadings) -> String {
        let now = Date()
        var text = "    now:  "
        if let models = readings.models, models.isFresh { text += self.models(models, now) + "; " }
        text += readings.health.map { health($0, now) } ?? "not read"
        text += "\n"
        guard let list = readings.models else { return text }
        let names = list.value.ids.isEmpty ? "(none listed)" : list.value.ids.map(Console.field).joined(separator: ", ")
        if list.isFresh {
            text += "    models: \(names)\n    choose one with: keep engines use MODEL\n"
        } else {
            let age = list.age(now: now)
            text += "    models (kept, read \(age)): \(names)\n"
            text +=
                "    choose one with: keep engines use MODEL (waits for a fresh model list; this one was read \(age))\n"
        }
        return text
    }
}
