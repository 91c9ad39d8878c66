import KeepApp
import KeepCLI
import KeepChatSealing
import KeepCore
import KeepEngines
import KeepPorts
import KeepReports

/// What a command runs with: its parsed command line, the composition root, the console.
struct Invocation: Sendable {
    let command: Command
    let arguments: ParsedArguments
    let composition: Composition
    let console: Console

    /// The positional argument at `index` (present: the parser checked the count).
    func positional(_ index: Int) -> String? {
        arguments.positionals.indices.contains(index) ? arguments.positionals[index] : nil
    }

    /// Whether `--json` was given.
    var json: Bool { arguments.has("--json") }

    /// The booted app core; a store that cannot be reached ends the command with the
    /// crash screen.
    func core() async throws(CommandFailure) -> AppCore {
        switch await composition.boot() {
        case .ready(let core): return core
        case .failed(let reason, let detail): throw .bootFailed(reason, detail: detail)
        }
    }

    /// The engine the settings choose for a turn (asking `choice`'s server). An engine that
    /// sends a key (one with an ``KeepEngines/EngineEndpoint``) using a key from the
    /// environment (no keyring answered) says so once, and why: that key is this run's only.
    func engine(for core: AppCore, choice: TurnChoice? = nil) async throws(CommandFailure) -> any ChatEngine {
        let engine: any ChatEngine
        do {
            engine = try await composition.engine(for: core, choice: choice)
        } catch {
            throw .because(error)
        }
        // An engine that sends a key says which (its endpoint): the warnings are about that key.
        guard let endpoint = engine.endpoint else { return engine }
        let backend = await composition.secrets()
        if !backend.environmentKeys.isEmpty, let warning = backend.warning {
            console.warning(warning)
        }
        await warnIfKeyUnreadable(endpoint.keyRef, backend, url: endpoint.server)
        return engine
    }

    /// Says, before anything is asked, that the key in `ref` cannot be read and why, so a
    /// question never goes out keyless in silence: always for a keyring that refuses
    /// (locked), and without any keyring when the server is not on this machine (a local
    /// one needs no key; a 401 from it says the key could not be read).
    private func warnIfKeyUnreadable(_ ref: SecretRef, _ backend: SecretsBackend, url: String) async {
        // Whether the server is this machine is asked only when it matters (a lookup).
        if backend.keyringUnavailable != nil, !(await KeyringChecks.needsKey(url: url)) { return }
        guard
            case .unknown(let error) = await backend.presence(of: ref)
        else { return }
        console.warning("the key in \(ref) cannot be read: \(error)")
    }

    /// Ends the command, having changed nothing, when the chats are sealed and out of reach
    /// this run (the keyring locked, their key gone): one line saying so, exit 1, never "no
    /// chats". A store that cannot be opened ends it with the crash screen.
    func requireChats() async throws(CommandFailure) {
        let sealing: ChatSealing
        do {
            sealing = try await composition.chatSealing()
        } catch {
            throw .bootFailed(.storageUnavailable, detail: error.description)
        }
        if !sealing.isReachable { throw .failure(sealing.summary) }
    }

    /// Prints `value` as the command's JSON output.
    func printJSON(_ value: some Encodable) throws(CommandFailure) {
        do {
            console.out(try JSONReport.text(of: value))
        } catch {
            throw .failure("the report could not be encoded as JSON: \(error)")
        }
    }

    /// The id of the chat `typed` names: itself, or the one chat (or draft) whose id starts
    /// with it; `typed` unchanged when none does, for the command to say there is no such
    /// chat. More than one is a failure listing them.
    func chatId(_ typed: String) async throws(CommandFailure) -> String {
        try await requireChats()
        let storage: any StoragePort
        do {
            storage = try await composition.storage()
        } catch {
            throw .bootFailed(.storageUnavailable, detail: error.description)
        }
        do {
            return try await ChatRepository(storage: storage).resolve(typed) ?? typed
        } catch {
            throw .because(error)
        }
    }
}
