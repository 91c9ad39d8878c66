import KeepApp
import KeepCLI
import KeepConversation
import KeepCore
import KeepPorts
import KeepReports

/// `keep settings`: show, read and change the settings.
enum SettingsCommand {
    static let command = Command(
        "settings", summary: "Show the settings, whether each is set, and where keys are kept",
        help: "A secret shows only whether it is configured, never its value. Settings live in "
            + "<data root>/store/settings/settings (JSON you may edit); keys live in the keychain.",
        examples: [
            "keep settings": "Show every setting, its value and whether it is set:"
        ],
        arguments: ArgumentParser(options: [ChatsCommand.json]), subcommands: [get, set, unset], run: list)

    static let get = Command(
        "get", summary: "Print the value in use for KEY (a secret: configured or not set)",
        examples: [
            "keep settings get model": "Print the model in use:"
        ],
        arguments: ArgumentParser(required: ["KEY"]), run: getSetting)

    static let set = Command(
        "set", summary: "Set KEY to VALUE, after checking it",
        examples: [
            "keep settings set baseUrl http://127.0.0.1:8080/v1":
                "Point the remote engine at a server on this machine:",
            "keep settings set engineId remote": "Answer with that server from the next question on:",
        ],
        arguments: ArgumentParser(required: ["KEY", "VALUE"]), run: setSetting)

    static let unset = Command(
        "unset", summary: "Put KEY back to its default",
        examples: [
            "keep settings unset temperature": "Put the temperature back to its default:"
        ],
        arguments: ArgumentParser(required: ["KEY"]), run: unsetSetting)

    // MARK: - List

    static func list(_ invocation: Invocation) async throws {
        let core = try await invocation.core()
        let report = await SettingsReport.make(
            SettingsFacade(core.settings), backend: await invocation.composition.secrets(),
            kept: try? await invocation.composition.kept(creating: false),
            chats: try? await invocation.composition.chatSealing())
        if invocation.json { return try invocation.printJSON(report) }
        let width = report.settings.map(\.key.count).max() ?? 0
        var text = ""
        // Each section once, in the order its first setting comes, with its settings under it.
        let sections = report.settings.reduce(into: [String]()) {
            if !$0.contains($1.section) { $0.append($1.section) }
        }
        for section in sections {
            text += "\(section)\n"
            for row in report.settings where row.section == section { text += line(row, width: width) }
        }
        if let key = report.key {
            let ref = "\(key.slot)/\(StorageError.quoted(key.account))"
            let state =
                key.problem.map { "unknown (\($0))" }
                ?? (key.configured == true
                    ? "configured" : "not set (none is sent: fine for a local server)")
            text += "\nThe remote engine's key: \(ref) (keySlot, keyAccount): \(state)\n"
        }
        text += "Keys are kept in: \(report.secrets.backend)\(report.secrets.note.map { "; \($0)" } ?? "")\n"
        if let kept = report.kept {
            text += "Kept data (readings, markers, preferences): \(kept.status)\n"
            if kept.kept, let retention = kept.retention {
                text += "Readings are kept \(retention) (keep engines retention DAYS|forever to change)\n"
            }
        }
        if let chats = report.chats { text += "Chats and drafts: \(chats.status)\n" }
        let console = invocation.console
        console.show(text)
        if let warning = report.secrets.warning { console.warning(warning) }
        if !report.file.healthy {
            console.warning(report.file.status)
            for refusal in report.file.refusals { console.warning("not used: \(refusal)") }
        }
    }

    /// One setting's row: its key, its value (a secret: whether it is configured) and
    /// whether it is set, then its help under it, filled to 80 columns.
    private static func line(_ row: SettingsReport.Row, width: Int) -> String {
        let value: String
        let note: String
        if row.secret {
            value = row.configured.map { $0 ? "configured" : "not set" } ?? "unknown"
            note = row.problem.map { "(\($0))" } ?? "(keychain)"
        } else {
            value = row.value?.description ?? ""
            note = row.isSet ? "(set)" : "(default)"
        }
        var text = "  \(row.key.padding(toLength: width, withPad: " ", startingAt: 0))  "
        text += "\(value.padding(toLength: max(value.count, 28), withPad: " ", startingAt: 0))  \(note)\n"
        return text + TextFill.wrapped(row.help, width: TextFill.width - 6).map { "      \($0)\n" }.joined()
    }

    // MARK: - Get, set, unset

    static func getSetting(_ invocation: Invocation) async throws {
        let key = invocation.positional(0) ?? ""
        let settings = try await invocation.core().settings
        let def = try known(key, settings)
        if def.isSecret, let ref = def.secretRef {
            let presence = await invocation.composition.secrets().presence(of: ref)
            if case .unknown(let error) = presence {
                throw CommandFailure.failure(
                    "\(key): cannot tell whether a key is stored: \(error)")
            }
            invocation.console.show("\(presence.summary)\n")
            return
        }
        if def.isSecret {
            let configured: Bool
            do {
                configured = try await settings.hasSecret(key)
            } catch {
                throw CommandFailure.because(error)
            }
            invocation.console.out(configured ? "configured\n" : "not set\n")
            return
        }
        invocation.console.show("\(settings.value(key)?.description ?? "")\n")
    }

    static func setSetting(_ invocation: Invocation) async throws {
        let key = invocation.positional(0) ?? ""
        let value = invocation.positional(1) ?? ""
        let settings = try await invocation.core().settings
        let def = try known(key, settings)
        if let ref = def.secretRef {
            throw CommandFailure.failure(
                "\(key) is a secret: it is kept in the keychain, never in the settings file; store it with "
                    + "`keep key set \(ref.slot.rawValue)` (it reads the key from standard input)")
        }
        try await changing(settings, invocation) { () async throws(SettingsError) in
            try await settings.set(key, .string(value))
        }
        invocation.console.show("\(key) = \(settings.value(key)?.description ?? "")\n")
        try await ServersCommand.follow(key, invocation)
        if key == SettingRegistry.chatHistory.key, settings.value(key)?.bool == false {
            try await forgetHistory(invocation)
        }
    }

    /// With chatHistory off, the lines typed before are removed at once: the history holds
    /// what the user typed, and the setting says none is kept.
    private static func forgetHistory(_ invocation: Invocation) async throws {
        let history: QuestionHistory
        do {
            history = QuestionHistory(
                storage: try await invocation.composition.storage(), root: try invocation.composition.dataRoot())
        } catch {
            throw CommandFailure.failure("\(error)")
        }
        do {
            try await history.remove()
        } catch {
            throw CommandFailure.failure("chatHistory is off, but \(error)")
        }
    }

    static func unsetSetting(_ invocation: Invocation) async throws {
        let key = invocation.positional(0) ?? ""
        let settings = try await invocation.core().settings
        try await changing(settings, invocation) { () async throws(SettingsError) in
            try await settings.unset(key)
        }
        let now = settings.value(key).map { " (\($0))" } ?? ""
        invocation.console.show("\(key) is back to its default\(now)\n")
        try await ServersCommand.follow(key, invocation)
    }

    /// Runs `change` holding the store's lock, on the settings file as it is now (another
    /// keep may have changed it since this one started), so no change is lost.
    static func changing(
        _ settings: SettingsStore, _ invocation: Invocation, _ change: () async throws(SettingsError) -> Void
    ) async throws {
        let held = try await invocation.composition.storeLock().acquire()
        defer { held.release() }
        do {
            try await settings.load()
            try await change()
        } catch {
            throw CommandFailure.because(error)
        }
        // The change moved an unreadable file aside: say where it went, this once.
        if case .keptAside = settings.health { invocation.console.warning(settings.health.description) }
    }

    /// The setting `key`, or a failure that lists the settings there are.
    private static func known(_ key: String, _ settings: SettingsStore) throws(CommandFailure) -> SettingDef {
        guard let def = settings.defs.first(where: { $0.key == key }) else {
            throw .failure(
                "there is no setting called \(StorageError.quoted(key)); the settings are "
                    + settings.defs.map(\.key).joined(separator: ", "))
        }
        return def
    }
}
