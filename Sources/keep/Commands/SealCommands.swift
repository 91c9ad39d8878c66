import KeepApp
import KeepCLI
import KeepChatSealing
import KeepPorts
import KeepReports

/// `keep chats seal` and `keep chats unseal`: the chats and drafts sealed under the chats'
/// data key, or made plain again, one at a time (``KeepApp/ChatResealing``).
enum SealCommands {
    static let seal = Command(
        "seal", summary: "Seal every chat and draft under the chats' data key in the keyring",
        help: "One chat at a time, each rewritten atomically: a kill or a power cut at any point loses nothing, "
            + "and running it again goes on where it stopped. Progress shows on a terminal. The chat index is "
            + "rebuilt under the new sealing at the next listing.",
        examples: [
            "keep chats seal": "Seal a store that was kept before a keyring answered:"
        ],
        arguments: ArgumentParser(), run: runSeal)

    static let unseal = Command(
        "unseal", summary: "Make every chat and draft plain text again",
        help: "One chat at a time, as `keep chats seal` goes, and as safe to interrupt. The chats' data key stays "
            + "in the keyring.",
        examples: [
            "keep chats unseal": "Make the chats plain again, to read them with other tools:"
        ],
        arguments: ArgumentParser(), run: runUnseal)

    static func runSeal(_ invocation: Invocation) async throws {
        let resealing = try await resealing(invocation)
        let outcome: ChatResealing.Outcome
        do {
            outcome = try await resealing.seal(progress: progress(invocation, "sealing chats"))
        } catch {
            throw CommandFailure.failure("the chats were not all sealed: \(error)")
        }
        finish(invocation, outcome, done: "sealed", under: " under the chats' data key in the keyring")
        if outcome.firstSealing {
            invocation.console.show(
                "A lost keyring now means sealed chats cannot be read: `keep recovery export FILE` writes their key, "
                    + "wrapped under a passphrase, to keep somewhere safe.\n")
        }
        if !outcome.unreadable.isEmpty { throw CommandFailure.silent }
    }

    static func runUnseal(_ invocation: Invocation) async throws {
        let resealing = try await resealing(invocation)
        let outcome: ChatResealing.Outcome
        do {
            outcome = try await resealing.unseal(progress: progress(invocation, "making chats plain"))
        } catch {
            throw CommandFailure.failure("the chats were not all made plain: \(error)")
        }
        finish(invocation, outcome, done: "made plain", under: "")
        if !outcome.unreadable.isEmpty { throw CommandFailure.silent }
    }

    private static func resealing(_ invocation: Invocation) async throws(CommandFailure) -> ChatResealing {
        do {
            return try await invocation.composition.resealing()
        } catch {
            throw .bootFailed(.storageUnavailable, detail: error.description)
        }
    }

    /// Progress in place on a terminal (`sealing chats: 1,200 of 40,000`), nothing on a pipe.
    private static func progress(_ invocation: Invocation, _ what: String) -> @Sendable (Int, Int) -> Void {
        let console = invocation.console
        guard console.errorIsTerminal else { return { _, _ in } }
        return { done, total in
            console.err("\r\u{1B}[K\(what): \(grouped(done)) of \(grouped(total))" + (done == total ? "\n" : ""))
        }
    }

    private static func finish(_ invocation: Invocation, _ outcome: ChatResealing.Outcome, done: String, under: String)
    {
        let console = invocation.console
        for problem in outcome.unreadable { console.warning("not rewritten, left as it is: \(problem)") }
        console.show(
            "\(Plural.of(outcome.rewritten, "chat or draft", plural: "chats and drafts")) \(done)\(under); "
                + "\(outcome.total - outcome.unreadable.count) of \(outcome.total) are so now.\n")
    }

    /// `40000` as `40,000`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}
