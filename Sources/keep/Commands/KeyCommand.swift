import KeepApp
import KeepCLI
import KeepCore
import KeepPorts
import KeepReports

/// `keep key`: store, check and remove API keys in the keychain.
enum KeyCommand {
    static let account = ArgumentParser.Option(
        "--account", value: "NAME", help: "the key for the account NAME in the slot (default: default)")

    static let command = Command(
        "key", summary: "Store, check or remove an API key in the keychain",
        help: "Slots: \(slotNames). An account (default: default) lets one slot hold several keys, such as "
            + "work and personal; the settings keySlot and keyAccount choose the one the remote engine sends.",
        examples: [
            "keep key set openai": "Store the OpenAI key, typed at a hidden prompt:",
            "keep key status": "Say which keys are stored:",
        ],
        subcommands: [set, status, remove])

    static let set = Command(
        "set", summary: "Store the key for SLOT, read from standard input (hidden on a terminal)",
        // KEY is taken only to be refused without being shown (see refuseKeyArgument).
        examples: [
            "keep key set openai": "Store a key, typed at a hidden prompt:",
            "keep key set openrouter --account work < key.txt":
                "Store the key in a file as the openrouter slot's work account:",
        ],
        arguments: ArgumentParser(options: [account], required: ["SLOT"], rest: "KEY", restIsRefused: true),
        run: setKey)

    static let status = Command(
        "status", summary: "Say whether a key is stored, none is, or the keyring cannot tell (never show it)",
        help: "With no SLOT: each slot's default account, and the key the settings keySlot and keyAccount "
            + "choose, whatever its account.",
        examples: [
            "keep key status openai --json": "Say as JSON whether the OpenAI key is stored:"
        ],
        arguments: ArgumentParser(options: [account, ChatsCommand.json], optional: ["SLOT"]), run: showStatus)

    static let remove = Command(
        "rm", summary: "Remove the key for SLOT from the keychain",
        examples: [
            "keep key rm openrouter --account work": "Remove the openrouter slot's work key:"
        ],
        arguments: ArgumentParser(options: [account], required: ["SLOT"]), run: removeKey)

    private static var slotNames: String { SecretSlot.allCases.map(\.rawValue).joined(separator: ", ") }

    // MARK: - Set

    static func setKey(_ invocation: Invocation) async throws {
        try refuseKeyArgument(invocation)
        let ref = try self.ref(invocation)
        let backend = await invocation.composition.secrets()
        if let refusal = backend.refusalToStore {
            throw CommandFailure.failure(
                "cannot store the key for \(ref): \(refusal.detail ?? refusal.code.description)")
        }
        // A keyring that refused at launch (locked): say so before a key is typed for nothing.
        if let refusal = backend.keyringRefusal {
            throw CommandFailure.failure("cannot store the key for \(ref): \(refusal); nothing was stored")
        }
        let console = invocation.console
        var value: String
        if console.inputIsTerminal {
            let prompt = "Key for \(ref) (typing is hidden): "
            guard let typed = try await HiddenInput.readLine(prompt: prompt, console: console)
            else { throw CommandFailure.failure("no key given; nothing was stored") }
            value = typed
        } else {
            value = try console.readAllInput()
        }
        value = KeyText.trimmed(value)
        guard !value.isEmpty else { throw CommandFailure.failure("no key given; nothing was stored") }
        if let problem = KeyText.problem(in: value) { throw CommandFailure.failure("\(problem); nothing was stored") }
        do {
            try await backend.secrets.set(ref, value)
        } catch {
            throw CommandFailure.because(error)
        }
        console.show("Stored the key for \(ref) in the \(backend.name).\n")
        if case .ready(let core) = await invocation.composition.boot(),
            let inUse = try? SettingRegistry.apiKeyRef(core.settings), inUse != ref
        {
            console.show(
                "The remote engine sends the key for \(inUse); to use this one: keep settings set keySlot "
                    + "\(ref.slot.rawValue), and keep settings set keyAccount \(ref.account)\n")
        }
    }

    // MARK: - Status

    static func showStatus(_ invocation: Invocation) async throws {
        let accountName = invocation.arguments.value(account.name) ?? "default"
        let slots: [SecretSlot] = try invocation.positional(0).map { [try slot($0)] } ?? SecretSlot.allCases
        let backend = await invocation.composition.secrets()
        var refs = slots.map { SecretRef($0, account: accountName) }
        // Without SLOT or --account, the key the settings choose is listed too, in any account.
        if invocation.positional(0) == nil, invocation.arguments.value(account.name) == nil,
            case .ready(let core) = await invocation.composition.boot(),
            let chosen = try? SettingRegistry.apiKeyRef(core.settings), !refs.contains(chosen)
        {
            refs.append(chosen)
        }
        var presences: [(SecretRef, KeyPresence)] = []
        for ref in refs { presences.append((ref, await backend.presence(of: ref))) }
        let report = KeyStatusReport.make(presences, backend: backend)
        if invocation.json {
            try invocation.printJSON(report)
            if !report.allKnown { throw CommandFailure.silent }
            return
        }
        let width = refs.map(\.description.count).max() ?? 0
        var text = ""
        for (ref, presence) in presences {
            text += "\(ref.description.padding(toLength: width, withPad: " ", startingAt: 0))  \(presence.summary)\n"
        }
        text += "Keys are kept in: \(backend.name)\(backend.protectionNote.map { "; \($0)" } ?? "")\n"
        invocation.console.show(text)
        if let warning = backend.warning { invocation.console.warning(warning) }
        // Cannot tell is not "not set": say why and how to fix it, and exit 1.
        let unknown = presences.compactMap { _, presence -> SecretsError? in
            if case .unknown(let error) = presence { return error } else { return nil }
        }
        if let error = unknown.first {
            throw CommandFailure.failure(
                "cannot tell whether \(unknown.count == 1 ? "a key is" : "keys are") stored: \(error)")
        }
    }

    // MARK: - Remove

    static func removeKey(_ invocation: Invocation) async throws {
        let ref = try self.ref(invocation)
        let backend = await invocation.composition.secrets()
        if let refusal = backend.refusalToStore {
            throw CommandFailure.failure(
                "cannot remove the key for \(ref): \(refusal.detail ?? refusal.code.description)")
        }
        do {
            let existed = try await backend.secrets.has(ref)
            try await backend.secrets.delete(ref)
            invocation.console.show(
                existed ? "Removed the key for \(ref) from the \(backend.name).\n" : "There was no key for \(ref).\n")
        } catch {
            throw CommandFailure.because(error)
        }
    }

    // MARK: - Arguments

    /// Refuses a key given on the command line (where shell history and the process list
    /// keep it), without repeating it: exit 2, nothing stored.
    private static func refuseKeyArgument(_ invocation: Invocation) throws(CommandFailure) {
        guard invocation.arguments.positionals.count > 1 else { return }
        throw .usage(
            "keep key set takes no key on the command line (shell history and the process list would keep it); "
                + "nothing was stored. Type it at the hidden prompt, or pipe it in: keep key set SLOT < file")
    }

    /// The ref the command line names: SLOT and `--account` (default `default`).
    private static func ref(_ invocation: Invocation) throws(CommandFailure) -> SecretRef {
        let accountName = invocation.arguments.value(account.name) ?? "default"
        guard !accountName.isEmpty else { throw .usage("--account needs a name") }
        return SecretRef(try slot(invocation.positional(0) ?? ""), account: accountName)
    }

    private static func slot(_ name: String) throws(CommandFailure) -> SecretSlot {
        do {
            return try SecretSlot.parse(name)
        } catch {
            throw .usage("\(StorageError.quoted(name)) is not a slot; the slots are \(slotNames)")
        }
    }
}
