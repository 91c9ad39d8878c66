import Foundation
import KeepApp
import KeepCLI
import KeepCore
import KeepEngines
import KeepKeptData
import KeepPorts
import KeepReports

/// `keep servers`: the servers keep can ask, and adding, removing and choosing the default.
enum ServersCommand {
    static let protocolOption = ArgumentParser.Option(
        "--protocol", value: "P", help: "openai (the default), anthropic or gemini: the API the server speaks")
    static let keyOption = ArgumentParser.Option(
        "--key", value: "SLOT[/ACCOUNT]",
        help: "the keychain slot (and account) of its key; by default openai, anthropic or google by protocol")
    static let modelOption = ArgumentParser.Option(
        "--model", "-m", value: "MODEL", help: "the model asked when a question names none (default: default)")
    static let caOption = ArgumentParser.Option(
        "--ca", value: "FILE", help: "verify its certificate against the authority in the PEM FILE alone")
    static let contextOption = ArgumentParser.Option(
        "--context", value: "TOKENS",
        help: "its context budget: older turns are left out of a request past it (else read from its model list)")

    static let command = Command(
        "servers", summary: "List the servers keep asks; add, remove, or choose the default",
        help: """
            Each server has a name, a base URL, the protocol it speaks (openai chat completions, anthropic
            messages, gemini), the keychain slot of its key (never the key: keep key set SLOT stores it), the
            model asked when a question names none, and optionally a private authority (--ca) and a context
            budget (--context; without one, the window the server's model list gives for the model, kept with
            the readings about it and asked again after seven days; the listing shows each budget and where it
            came from). `ask -s NAME`, `chat -s NAME`, `/server NAME` and `-m NAME/MODEL` ask a server
            other than the default. The servers live in the store at settings/profiles, plain JSON; the first
            run of this version carried the baseUrl, model, keySlot and keyAccount settings into the server
            `default` (the settings stay as they were).
            """,
        examples: [
            "keep servers": "List the servers, the default one marked:",
            "keep servers add claude https://api.anthropic.com/v1 --protocol anthropic":
                "Add Anthropic's API as the server claude:",
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json.described("print the servers as one JSON object")]),
        subcommands: [add, remove, use], run: list)

    static let add = Command(
        "add", summary: "Add the server NAME at URL, or replace the one of that name",
        examples: [
            "keep servers add local http://127.0.0.1:8080/v1 -m qwen3 --context 32768":
                "A server on this machine, asked for qwen3, its context budget 32768 tokens:",
            "keep servers add gpt https://api.openai.com/v1 --key openai -m gpt-4o-mini":
                "OpenAI's API, with the key slot it sends and the model it asks by default:",
        ],
        arguments: ArgumentParser(
            options: [protocolOption, keyOption, modelOption, caOption, contextOption], required: ["NAME", "URL"]),
        run: addServer)

    static let remove = Command(
        "rm", summary: "Remove the server NAME (not the default one)",
        examples: ["keep servers rm old": "Remove the server old:"],
        arguments: ArgumentParser(required: ["NAME"]), run: removeServer)

    static let use = Command(
        "use", summary: "Make NAME the server asked when none is named (and the remote engine the one used)",
        examples: ["keep servers use claude": "Ask claude whenever a question names no server:"],
        arguments: ArgumentParser(required: ["NAME"]), run: useServer)

    // MARK: - List

    static func list(_ invocation: Invocation) async throws {
        let core = try await invocation.core()
        let book = await invocation.composition.serverBook(core)
        let learned = await learnedWindows(book, invocation)
        let report = ServersReport(book, learned: learned)
        if invocation.json { return try invocation.printJSON(report) }
        let console = invocation.console
        let width = report.servers.map(\.name.count).max() ?? 0
        for server in report.servers {
            var line =
                "\(server.default ? "*" : " ") \(server.name.padding(toLength: width, withPad: " ", startingAt: 0))"
            line += "  \(server.protocol)  \(server.url)  model \(server.model)  key \(keyText(server.key))"
            if let ca = server.ca { line += "  ca \(ca)" }
            line += "  context \(contextText(server.context, readAt: learned[server.name]?.readAt))"
            console.show(line + "\n")
        }
        for refused in report.refused { console.show("  not used: \(refused.entry): \(refused.reason)\n") }
        if core.engineId != RemoteEngine.engineId {
            console.out("The engine is \(core.engineId), so no server is asked unless a question names one (-s).\n")
        }
    }

    /// `8192 (setting)`, `131072 (model list, read 3 h ago)`, `none`.
    private static func contextText(_ context: ServersReport.Context, readAt: Date?) -> String {
        guard let tokens = context.tokens else { return "none" }
        let read = context.readAt == nil ? "" : readAt.map { ", read \(ReadingAge(readAt: $0, now: Date()))" } ?? ""
        return "\(tokens) (\(context.source)\(read))"
    }

    /// The windows kept data learned for each server without a budget of its own (its model's,
    /// from its model list), by server name; read from what is kept, never asked for.
    private static func learnedWindows(_ book: ServerBook, _ invocation: Invocation) async -> [String: ContextWindow] {
        let unset = book.servers.filter { $0.contextTokens == nil }
        guard !unset.isEmpty, let engines = try? await invocation.composition.kept(creating: false).engines else {
            return [:]
        }
        var learned: [String: ContextWindow] = [:]
        for server in unset {
            guard let address = try? ServerAddress(server.url) else { continue }
            learned[server.name] = await engines.keptWindow(of: server.model, at: address)
        }
        return learned
    }

    private static func keyText(_ key: ServersReport.Key) -> String {
        key.account == "default" ? key.slot : "\(key.slot)/\(key.account)"
    }

    // MARK: - Changes

    static func addServer(_ invocation: Invocation) async throws {
        let arguments = invocation.arguments
        let name = invocation.positional(0) ?? ""
        let url = invocation.positional(1) ?? ""
        if let problem = Profiles.nameProblem(name) { throw CommandFailure.usage("NAME: \(problem)") }
        if let problem = ServerURLRule.problem(in: url) { throw CommandFailure.usage("URL is refused: \(problem)") }
        var wire = ServerProtocol.openai
        if let text = arguments.value(protocolOption.name) {
            guard let named = ServerProtocol(rawValue: text) else {
                throw CommandFailure.usage("--protocol must be \(ServerProtocol.described)")
            }
            wire = named
        }
        var key = SecretRef(wire.defaultSlot)
        if let text = arguments.value(keyOption.name) {
            switch ServerProfile.key(parsing: text) {
            case .success(let ref): key = ref
            case .failure(let reason): throw CommandFailure.usage("--key: \(reason)")
            }
        }
        let model = arguments.value(modelOption.name) ?? "default"
        if model.allSatisfy(\.isWhitespace) { throw CommandFailure.usage("--model needs a model name") }
        var authority: String?
        if let path = arguments.value(caOption.name) {
            // An authority verifies a certificate, and plain http has none.
            guard URL(string: url)?.scheme?.lowercased() == "https" else {
                throw CommandFailure.usage("--ca needs an https:// URL: plain http has no certificate to verify")
            }
            authority = try authorityFile(path)
        }
        var budget: Int?
        if let text = arguments.value(contextOption.name) {
            guard let number = Int(text), (1...ServerProfile.contextTokensLimit).contains(number) else {
                throw CommandFailure.usage(
                    "--context must be a whole number from 1 to \(ServerProfile.contextTokensLimit)")
            }
            budget = number
        }
        let server = ServerProfile(
            name: name, url: url, wire: wire, key: key, model: model, authority: authority, contextTokens: budget)
        let replaced = try await edit(invocation) { profiles throws(CommandFailure) in
            let had = profiles.hasServerEntry(name)
            profiles.set(server)
            return had
        }
        invocation.console.show(
            "Server \(name) \(replaced ? "replaced" : "added"): \(wire.rawValue) at \(url), model \(model), "
                + "key in \(key) (keep key set \(key.slot.rawValue)"
                + (key.account == "default" ? "" : " --account \(key.account)") + " stores it).\n")
    }

    /// The absolute path of the authority file `path`, once it is seen to hold a certificate.
    private static func authorityFile(_ path: String) throws(CommandFailure) -> String {
        let absolute =
            path.hasPrefix("/")
            ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: absolute),
            String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----")
        else {
            throw CommandFailure.failure("--ca \(path): not a readable PEM file holding a certificate")
        }
        return (absolute as NSString).standardizingPath
    }

    static func removeServer(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        try await edit(invocation) { profiles throws(CommandFailure) in
            guard profiles.hasServerEntry(name) else {
                throw .failure("there is no server \"\(name)\" in the servers file; keep servers lists them")
            }
            guard profiles.defaultServer != name else {
                throw .failure("\(name) is the default server; keep servers use ANOTHER first")
            }
            _ = profiles.removeServer(name)
        }
        invocation.console.show("Server \(name) removed.\n")
    }

    static func useServer(_ invocation: Invocation) async throws {
        let name = invocation.positional(0) ?? ""
        let core = try await invocation.core()
        let book = await invocation.composition.serverBook(core)
        guard let server = book.server(name) else {
            throw CommandFailure.failure(
                "there is no server \"\(name)\"; servers: \(book.servers.map(\.name).joined(separator: ", "))")
        }
        try await edit(invocation) { profiles throws(CommandFailure) in
            // The carried server, standing in for a missing entry, is written down with it.
            if !profiles.hasServerEntry(name) { profiles.set(server) }
            profiles.useServer(name)
        }
        if core.engineId != RemoteEngine.engineId {
            do {
                try await core.settings.set(SettingRegistry.engineId.key, .string(RemoteEngine.engineId))
            } catch {
                throw CommandFailure.failure("the engine could not be set to remote: \(error)")
            }
        }
        invocation.console.show("The default server is now \(name) (\(server.url)); the remote engine asks it.\n")
    }

    /// Applies `change` to the servers file under the store's lock (read, change, write),
    /// after the one-time carry-over; answers what `change` answered.
    @discardableResult
    static func edit<T>(
        _ invocation: Invocation, _ change: (inout Profiles) throws(CommandFailure) -> T
    ) async throws -> T {
        let core = try await invocation.core()
        let composition = invocation.composition
        _ = await composition.serverBook(core)
        let store = ProfilesStore(storage: try await composition.storage())
        let held = try await composition.storeLock().acquire()
        defer { held.release() }
        var profiles = try await store.load()
        let answer = try change(&profiles)
        try await store.save(profiles)
        await composition.serversChanged()
        return answer
    }

    /// The settings the server `default` was carried from: changing one later changes that
    /// server too, so a script that sets `baseUrl` or `model` still moves keep.
    static let followedSettings = [
        SettingRegistry.baseUrl.key, SettingRegistry.model.key, SettingRegistry.keySlot.key,
        SettingRegistry.keyAccount.key,
    ]

    /// After the setting `key` changed: when it is one the server `default` was carried from
    /// and the file has that server, its URL, model or key follows the setting (the rest of
    /// the entry as it was). Says so on standard error.
    static func follow(_ key: String, _ invocation: Invocation) async throws {
        guard followedSettings.contains(key) else { return }
        let core = try await invocation.core()
        let carried: ServerProfile
        do {
            carried = try SettingRegistry.carriedServer(core.settings)
        } catch {
            return
        }
        let followed = try await edit(invocation) { profiles throws(CommandFailure) -> Bool in
            guard var server = profiles.server(Profiles.defaultName) else { return false }
            switch key {
            case SettingRegistry.baseUrl.key: server.url = carried.url
            case SettingRegistry.model.key: server.model = carried.model
            default: server.key = carried.key
            }
            profiles.set(server)
            return true
        }
        if followed { invocation.console.note("(the server default follows: keep servers shows it)") }
    }

    /// Makes `model` the model of the server `name` in the file (`keep engines use`).
    static func setModel(_ model: String, of name: String, _ invocation: Invocation) async throws {
        try await edit(invocation) { profiles throws(CommandFailure) in
            guard var server = profiles.server(name) else { return }
            server.model = model
            profiles.set(server)
        }
    }
}
