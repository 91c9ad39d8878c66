import KeepApp
import KeepCLI
import KeepChatSealing
import KeepPorts

/// `keep recovery`: the chats' data key written to a file under a passphrase, and put back
/// into a keyring from one (`ChatKeyRecovery`, in KeepChatSealing).
enum RecoveryCommand {
    static let replace = ArgumentParser.Option(
        "--replace", help: "put the file's key in place of a different chats' data key the keyring holds")

    static let command = Command(
        "recovery", summary: "Write the chats' key to a recovery file, or put it back into a keyring from one",
        help: "Sealed chats open only under their key, which lives in the keyring: a recovery file, kept "
            + "somewhere safe, is what brings them back on a new machine or after the keyring was reset. The "
            + "passphrase is asked twice on a terminal (hidden), or read as one line of standard input.",
        examples: [
            "keep recovery export ~/keep-chats.recovery": "Write the chats' key, under a passphrase, to a new file:"
        ],
        subcommands: [export, importing])

    static let export = Command(
        "export", summary: "Write the chats' data key, wrapped under a passphrase, to the new file FILE",
        help: "FILE is created readable by you only, and never over a file that is there.",
        examples: [
            "keep recovery export ~/keep-chats.recovery": "Write a recovery file, asking for its passphrase:"
        ],
        arguments: ArgumentParser(required: ["FILE"]), run: runExport)

    static let importing = Command(
        "import", summary: "Put the chats' data key from the recovery file FILE into the keyring",
        help: "A different key the keyring holds is replaced only with --replace. A wrong passphrase is "
            + "refused, and says nothing of the key.",
        examples: [
            "keep recovery import ~/keep-chats.recovery": "Bring the chats' key back on a new machine:"
        ],
        arguments: ArgumentParser(options: [replace], required: ["FILE"]), run: runImport)

    static func runExport(_ invocation: Invocation) async throws {
        guard let path = invocation.positional(0) else { throw CommandFailure.usage("give the file to write") }
        let recovery = await recovery(invocation)
        var passphrase = try await passphrase(invocation, twice: true)
        defer { passphrase.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        do {
            try await recovery.export(to: path, passphrase: passphrase)
        } catch {
            throw CommandFailure.failure("no recovery file was written: \(error)")
        }
        invocation.console.show(
            "Wrote the chats' data key, wrapped under your passphrase, to \(StorageError.quoted(path)). Keep it "
                + "somewhere safe, apart from this machine; `keep recovery import` brings the key back.\n")
    }

    static func runImport(_ invocation: Invocation) async throws {
        guard let path = invocation.positional(0) else { throw CommandFailure.usage("give the recovery file") }
        let text = try ChatsCommand.readFile(path, what: "a keep recovery file")
        let recovery = await recovery(invocation)
        var passphrase = try await passphrase(invocation, twice: false)
        defer { passphrase.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let imported: ChatKeyRecovery.Imported
        do {
            imported = try await recovery.importKey(
                text, passphrase: passphrase, replace: invocation.arguments.has(replace.name))
        } catch {
            throw CommandFailure.failure("the key was not imported: \(error)")
        }
        switch imported {
        case .alreadyThere: invocation.console.show("The keyring holds this chats' data key already.\n")
        case .stored(let replaced):
            invocation.console.show(
                "Put the chats' data key into the keyring\(replaced ? ", in place of the one it held" : ""): "
                    + "chats sealed under it open again.\n")
        }
    }

    private static func recovery(_ invocation: Invocation) async -> ChatKeyRecovery {
        let backend = await invocation.composition.secrets()
        return ChatKeyRecovery(keyStore: backend.keyStore, refusal: backend.keyringRefusal)
    }

    /// The passphrase: typed hidden on a terminal (`twice`: and again, the same), else one
    /// line of standard input.
    private static func passphrase(_ invocation: Invocation, twice: Bool) async throws(CommandFailure) -> [UInt8] {
        let console = invocation.console
        var typed: String
        if console.inputIsTerminal {
            guard
                let first = try await HiddenInput.readLine(prompt: "Passphrase (typing is hidden): ", console: console)
            else { throw .failure("no passphrase given; nothing was done") }
            if twice {
                let again = try await HiddenInput.readLine(prompt: "The same passphrase again: ", console: console)
                guard again == first else { throw .failure("the two passphrases differ; nothing was done") }
            }
            typed = first
        } else {
            typed = String(
                try console.readAllInput().split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            if typed.hasSuffix("\r") { typed.removeLast() }
        }
        guard !typed.isEmpty else { throw .failure("the passphrase is empty; nothing was done") }
        return Array(typed.utf8)
    }
}
