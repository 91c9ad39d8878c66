import Foundation
import KeepTestSupport
import Testing

/// keep with a real Secret Service: the private GNOME Keyring `scripts/with-keyring` runs.
///
/// The tests share that keyring, so they run one at a time, and each uses an account of
/// its own (and removes its keys), so none sees another's.
@Suite(
    "keep with a keyring", .serialized,
    .onTheScriptsKeyring)
struct KeyringTests {
    private let account = "e2e-\(UUID().uuidString.lowercased())"

    @Test("keep ask sends the key of the configured slot and account, stored with keep key set")
    func sendsTheConfiguredKey() async throws {
        let server = try LoopbackServer(LoopbackServer.streaming(["authorised ", "answer"]))
        let sandbox = try Sandbox(keyring: true)
        try await sandbox.useRemote(server)
        let key = "sk-test-\(UUID().uuidString)"
        let set = try await sandbox.run(["key", "set", "openrouter", "--account", account], input: key + "\n")
        #expect(set.status == .exited(0), "\(set)")
        #expect(
            set.stdout.hasPrefix("Stored the key for openrouter/\"\(account)\" in the Secret Service (OS keyring).\n"))
        #expect(set.stdout.contains("keep settings set keySlot openrouter"), "it says how to use it")
        try await removingKeys(["openrouter"], sandbox) {

            // A key in another slot is not the one the settings name: nothing is sent yet.
            _ = try await sandbox.run("ask", "before")
            #expect(server.requests.last?.header("Authorization") == nil)

            #expect(try await sandbox.run("settings", "set", "keySlot", "openrouter").status == .exited(0))
            #expect(try await sandbox.run("settings", "set", "keyAccount", account).status == .exited(0))
            let asked = try await sandbox.run("ask", "after")
            #expect(asked.status == .exited(0), "\(asked)")
            #expect(asked.stdout == "authorised answer\n")
            #expect(server.requests.last?.header("Authorization") == "Bearer \(key)")

            // The key is shown nowhere and written nowhere under the data root.
            let status = try await sandbox.run("key", "status", "openrouter", "--account", account)
            #expect(status.stdout.hasPrefix("openrouter/\"\(account)\"  configured\n"), "\(status)")
            let settings = try await sandbox.run("settings", "--json")
            #expect(settings.stdout.contains("\"configured\" : true"), "\(settings)")
            let marker = try await sandbox.run("settings", "get", "keyAccount")
            #expect(marker.stdout == "\(account)\n")
            let scan = try DiskScan(sandbox.root)
            #expect(scan.contains(account), "the scan reads the files it checks")
            #expect(!scan.contains(key))
            for output in [set, asked, status, settings] {
                #expect(!output.stdout.contains(key) && !output.stderr.contains(key))
            }
        }
    }

    @Test("a server that answers 401 to the key sent says it refused the key, and how to store another")
    func refusedKey() async throws {
        let server = try LoopbackServer(
            LoopbackServer.failing(status: 401, body: #"{"error":{"message":"bad key sk-wr…ng"}}"#))
        let sandbox = try Sandbox(keyring: true)
        try await sandbox.useRemote(server)
        #expect(
            try await sandbox.run(["key", "set", "openai", "--account", account], input: "sk-wrong").status
                == .exited(0))
        try await removingKeys(["openai"], sandbox) {
            #expect(try await sandbox.run("settings", "set", "keyAccount", account).status == .exited(0))

            let asked = try await sandbox.run("ask", "hello")
            #expect(asked.status == .exited(1))
            #expect(server.requests.first?.header("Authorization") == "Bearer sk-wrong")
            #expect(
                asked.stderr.contains(
                    "refused the API key in openai/\"\(account)\" (HTTP 401: bad key sk-wr…ng); store the right one with "
                        + "`keep key set openai --account \"\(account)\"`"), "\(asked)")
        }
    }

    @Test("keep key rm removes the key, and status then says not set")
    func removeAKey() async throws {
        let sandbox = try Sandbox(keyring: true)
        #expect(
            try await sandbox.run(["key", "set", "custom", "--account", account], input: "sk-x").status == .exited(0))
        let removed = try await sandbox.run("key", "rm", "custom", "--account", account)
        #expect(removed.status == .exited(0))
        #expect(removed.stdout == "Removed the key for custom/\"\(account)\" from the Secret Service (OS keyring).\n")
        let status = try await sandbox.run("key", "status", "custom", "--account", account)
        #expect(status.stdout.hasPrefix("custom/\"\(account)\"  not set\n"))
        let again = try await sandbox.run("key", "rm", "custom", "--account", account)
        #expect(again.stdout == "There was no key for custom/\"\(account)\".\n")
    }

    @Test("on a terminal, keep key set reads the key without showing it")
    func hiddenInput() async throws {
        let sandbox = try Sandbox(keyring: true)
        try await removingKeys(["custom"], sandbox) {
            let set = try sandbox.start(["key", "set", "custom", "--account", account], terminal: true)
            #expect(await set.output.wait(for: "Key for custom/\"\(account)\" (typing is hidden): "))
            #expect(set.terminalEchoes == false, "echo is off while the key is typed")
            set.write("sk-typed-unseen\r")
            #expect(await set.exit() == .exited(0))
            let shown = await set.output.waitForEnd()
            #expect(shown.contains("Stored the key for custom/\"\(account)\""), "the check reads what was shown")
            #expect(!shown.contains("sk-typed-unseen"))
            #expect(set.terminalEchoes == true, "echo is back on afterwards")
            let status = try await sandbox.run("key", "status", "custom", "--account", account)
            #expect(status.stdout.hasPrefix("custom/\"\(account)\"  configured\n"), "\(status)")
        }
    }

    @Test("Ctrl-C while a key is typed stores nothing and leaves the terminal echoing")
    func interruptedHiddenInput() async throws {
        let sandbox = try Sandbox(keyring: true)
        let set = try sandbox.start(["key", "set", "custom", "--account", account], terminal: true)
        #expect(await set.output.wait(for: "(typing is hidden): "))
        set.write("sk-half")
        set.write("\u{03}")
        #expect(await set.exit() == .exited(1))
        #expect(await set.output.waitForEnd().contains("keep: interrupted; nothing was stored"))
        #expect(set.terminalEchoes == true)
        let status = try await sandbox.run("key", "status", "custom", "--account", account)
        #expect(status.stdout.hasPrefix("custom/\"\(account)\"  not set\n"), "\(status)")
    }

    @Test(
        "keep settings, keep key status and keep doctor tell the truth about the OS keyring with no warning when all is well"
    )
    func honestProtection() async throws {
        let sandbox = try Sandbox(keyring: true)
        _ = try await sandbox.ask("hello")
        let settings = try await sandbox.run("settings")
        #expect(settings.stdout.contains("Keys are kept in: Secret Service (OS keyring); encrypted at rest"))
        #expect(settings.stdout.contains("not hardware-backed"), "\(settings)")
        #expect(settings.stderr.isEmpty, "nothing needs the user, so nothing warns: \(settings)")
        for command in [["settings"], ["key", "status"]] {
            let shown = try await sandbox.runOnTerminal(command)
            #expect(shown.status == .exited(0), "\(command): \(shown.screen)")
            #expect(!shown.screen.contains("warning"), "\(command): \(shown.screen)")
        }
        let json = try await sandbox.run("settings", "--json")
        #expect(json.stdout.contains("\"note\" : \"encrypted at rest"), "\(json)")
        #expect(!json.stdout.contains("\"warning\""), "\(json)")

        let doctor = try await sandbox.run("doctor")
        #expect(doctor.status == .exited(0), "\(doctor)")
        #expect(doctor.stdout.contains("secrets        Secret Service (OS keyring)"), "\(doctor)")
        #expect(doctor.stdout.hasSuffix("All is well.\n"))
    }
}

extension KeyringTests {
    /// Runs `body`, then removes this test's keys in `slots` from the shared keyring,
    /// whether `body` passed or not.
    @Test("keep key status with no slot lists the key the settings choose, in any account; with a slot, that slot's")
    func statusListsTheChosenKey() async throws {
        let sandbox = try Sandbox(keyring: true)
        #expect(
            try await sandbox.run(["key", "set", "openrouter", "--account", account], input: "sk-x").status
                == .exited(0))
        try await removingKeys(["openrouter"], sandbox) {
            let chosen = "openrouter/\"\(account)\""
            // Before the settings choose it, the default accounts alone, one row a slot.
            let before = try await sandbox.run("key", "status")
            #expect(before.stdout.split(separator: "\n").filter { $0.contains("/") }.count == 5, "\(before)")
            #expect(!before.stdout.contains(chosen))
            #expect(try await sandbox.run("settings", "set", "keySlot", "openrouter").status == .exited(0))
            #expect(try await sandbox.run("settings", "set", "keyAccount", account).status == .exited(0))
            let after = try await sandbox.run("key", "status")
            #expect(after.stdout.contains("\(chosen)  configured\n"), "\(after)")
            #expect(after.stdout.contains("openai/\"default\""), "the default accounts are still there")
            let json = try await sandbox.run("key", "status", "--json")
            #expect(json.stdout.contains("\"account\" : \"\(account)\""), "\(json)")
            // A slot named is that slot's default account only, as asked.
            let named = try await sandbox.run("key", "status", "openai")
            #expect(!named.stdout.contains(chosen) && named.stdout.hasPrefix("openai/\"default\""), "\(named)")
        }
    }

    private func removingKeys(_ slots: [String], _ sandbox: Sandbox, _ body: () async throws -> Void) async throws {
        func cleanUp() async {
            for slot in slots { _ = try? await sandbox.run("key", "rm", slot, "--account", account) }
        }
        do {
            try await body()
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}

/// Every byte of every file under a directory, to look for a value that must not be there.
struct DiskScan {
    private let contents: [Data]

    init(_ directory: String) throws {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        contents = files.compactMap { FileManager.default.contents(atPath: "\(directory)/\($0)") }
    }

    func contains(_ text: String) -> Bool {
        contents.contains { $0.range(of: Data(text.utf8)) != nil }
    }
}
