import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// Every state of the keyring told truthfully, on a real GNOME Keyring of each test's own
/// (so a test may lock it or stop it without touching anyone else's): a key stored, none,
/// or "cannot tell" with the reason, and only keep's own items ever touched.
@Suite(
    "The keyring's states, told truthfully",
    .enabled(
        if: ToolRun.isInstalled("gnome-keyring-daemon") && ToolRun.isInstalled("dbus-daemon")
            && KeepTestSupport.SecretTool.isInstalled,
        "needs gnome-keyring-daemon, dbus-daemon and secret-tool (scripts/lib/packages.sh installs them)"))
struct KeyringStatesTests {
    /// Runs `body` with a keyring of its own and a sandbox whose keep uses it.
    private func withKeyring(_ body: (PrivateKeyring, Sandbox) async throws -> Void) async throws {
        try await PrivateKeyring.with { keyring in
            var sandbox = try Sandbox()
            sandbox.extra["DBUS_SESSION_BUS_ADDRESS"] = keyring.bus.address
            try await body(keyring, sandbox)
        }
    }

    private func tool(_ keyring: PrivateKeyring) -> KeepTestSupport.SecretTool {
        KeepTestSupport.SecretTool(environment: keyring.bus.environment())
    }

    @Test("a locked keyring is told as locked by key status, settings, doctor and ask, never as no key")
    func lockedIsNotAbsent() async throws {
        try await withKeyring { keyring, sandbox in
            let server = try LoopbackServer(LoopbackServer.streaming(["fine"]))
            try await sandbox.useRemote(server)
            #expect(try await sandbox.run(["key", "set", "openai"], input: "sk-locked-away\n").status == .exited(0))
            let before = try await sandbox.run("key", "status", "openai")
            #expect(before.stdout.hasPrefix("openai/\"default\"  configured\n"), "the key is there: \(before)")

            try await keyring.lockDefaultCollection()
            try #require(try await keyring.defaultCollectionIsLocked())

            let status = try await sandbox.run("key", "status", "openai")
            #expect(status.status == .exited(1), "\(status)")
            #expect(status.stdout.hasPrefix("openai/\"default\"  cannot tell: the keyring is locked\n"), "\(status)")
            #expect(status.stderr.contains("keep: cannot tell whether a key is stored:"), "\(status)")
            #expect(status.stderr.contains("unlock it"), "it says how: \(status)")

            let json = try await sandbox.run("key", "status", "openai", "--json")
            #expect(json.status == .exited(1))
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let entry = try #require((report["keys"] as? [[String: Any]])?.first)
            #expect(entry["state"] as? String == "unknown")
            #expect(entry["reason"] as? String == "locked")
            #expect((entry["advice"] as? String)?.contains("unlock the keyring") == true)

            let settings = try await sandbox.run("settings", "--json")
            let shown = try #require(
                try JSONSerialization.jsonObject(with: Data(settings.stdout.utf8)) as? [String: Any])
            let row = try #require(
                (shown["settings"] as? [[String: Any]])?.first { $0["key"] as? String == "openaiApiKey" })
            #expect(row["configured"] == nil, "a locked keyring is not 'not configured'")
            #expect((row["problem"] as? String)?.contains("locked") == true, "\(row)")
            let key = try #require(shown["key"] as? [String: Any])
            #expect(key["configured"] == nil && (key["problem"] as? String)?.contains("locked") == true)

            let doctor = try await sandbox.run("doctor")
            #expect(doctor.stdout.contains("the keyring cannot be used now"), "\(doctor)")
            #expect(doctor.stdout.contains("locked"), "\(doctor)")

            let asked = try await sandbox.run("ask", "hello")
            #expect(asked.status == .exited(1), "\(asked)")
            #expect(asked.stderr.contains("keep: warning: the key in openai/\"default\" cannot be read:"), "\(asked)")
            #expect(asked.stderr.contains("cannot read the API key:") && asked.stderr.contains("locked"), "\(asked)")
            #expect(server.requests.isEmpty, "nothing was sent without the key")

            // The first screen of `keep` says it before anything is asked.
            let chat = try await sandbox.run(["chat"], input: "")
            #expect(chat.stderr.contains("keep: warning: the key in openai/\"default\" cannot be read:"), "\(chat)")
            #expect(chat.stderr.contains("locked"), "\(chat)")

            let set = try await sandbox.run(["key", "set", "openai"], input: "sk-other\n")
            #expect(set.status == .exited(1) && set.stderr.contains("locked"), "\(set)")
            #expect(try await keyring.defaultCollectionIsLocked(), "keep unlocked the keyring")
            for output in [status, json, settings, doctor, asked, set] {
                #expect(!output.stdout.contains("sk-locked") && !output.stderr.contains("sk-locked"))
            }

            // Unlocked again (the daemon restarted with its password), the same key is there and sent.
            try await keyring.restart()
            let asked2 = try await sandbox.run("ask", "hello again")
            #expect(asked2.status == .exited(0), "\(asked2)")
            #expect(server.requests.last?.header("Authorization") == "Bearer sk-locked-away")
        }
    }

    @Test(
        "kept data in a locked keyring: every kept-data command says it cannot tell, exits 1 and changes nothing; the rows come back unlocked"
    )
    func keptDataWhileLocked() async throws {
        try await withKeyring { keyring, sandbox in
            let server = try KeptModelServer(models: ["kept-model-a", "kept-model-b"])
            #expect(try await sandbox.run("settings", "set", "baseUrl", server.baseURL).status == .exited(0))
            #expect(try await sandbox.run("engines").status == .exited(0))
            let kept = try await sandbox.run("engines")
            #expect(!kept.stdout.contains("kept: nothing yet"), "a reading is kept: \(kept)")
            let path = sandbox.root + "/kept.sqlite"
            let rows = try await SQLiteTool.output(path, "SELECT count(*) FROM engines_readings;")
            #expect(rows != "0\n")

            // The pair: unlocked, each kept-data command answers from what is kept.
            let retention = try await sandbox.run("engines", "retention")
            #expect(
                retention.status == .exited(0) && retention.stdout == "Readings are kept 30 days.\n", "\(retention)")

            try await keyring.lockDefaultCollection()
            let cannotTell =
                "keep: cannot tell: the keyring is locked; what keep has kept is neither shown nor changed until it "
                + "can be read (unlock it, then retry)\n"
            for arguments in [
                ["engines"], ["engines", "--json"], ["engines", "retention"], ["engines", "retention", "3"],
                ["engines", "forget", server.baseURL], ["whatsnew"], ["engines", "use", "kept-model-a"],
            ] {
                let locked = try await sandbox.run(arguments)
                #expect(locked.status == .exited(1), "keep \(arguments): \(locked)")
                #expect(locked.stderr.hasSuffix(cannotTell), "keep \(arguments): \(locked)")
                #expect(!locked.stdout.contains("30") && !locked.stdout.contains("Nothing"), "\(locked)")
                #expect(!locked.stdout.contains("now kept") && !locked.stdout.contains("Forgot"), "\(locked)")
            }
            let doctor = try await sandbox.run("doctor")
            #expect(doctor.stdout.contains("kept data") && doctor.stdout.contains("locked"), "\(doctor)")
            #expect(try await SQLiteTool.output(path, "SELECT count(*) FROM engines_readings;") == rows, "rows touched")
            #expect(try await SQLiteTool.output(path, "SELECT count(*) FROM keep_vault;") != "0\n")

            try await keyring.restart()
            let back = try await sandbox.run("engines")
            #expect(back.status == .exited(0), "\(back)")
            #expect(!back.stdout.contains("kept: nothing yet"), "the kept rows are back: \(back)")
            #expect(!back.stderr.contains("cleared"), "no key-loss notice: \(back)")
            let unchanged = try await sandbox.run("engines", "retention")
            #expect(
                unchanged.stdout == "Readings are kept 30 days.\n", "the refused change changed nothing: \(unchanged)")
        }
    }

    @Test(
        "with the keyring locked doctor says it cannot tell whether the key would go over plain http, never drops the check"
    )
    func keyOverHttpCannotTell() async throws {
        try await withKeyring { keyring, sandbox in
            // A TEST-NET address: doctor contacts no server, so nothing is ever sent there.
            for (key, value) in [("engineId", "remote"), ("baseUrl", "http://192.0.2.1:8080/v1")] {
                #expect(try await sandbox.run("settings", "set", key, value).status == .exited(0))
            }
            #expect(try await sandbox.run(["key", "set", "openai"], input: "sk-for-doctor\n").status == .exited(0))
            // The pair: unlocked, doctor knows a key is stored and says it would not be sent.
            let unlocked = try await sandbox.run("doctor")
            #expect(
                unlocked.stdout.contains("key over http") && unlocked.stdout.contains("keep refuses to send it"),
                "\(unlocked)")

            try await keyring.lockDefaultCollection()
            let locked = try await sandbox.run("doctor")
            #expect(locked.status == .exited(1), "\(locked)")
            let line = locked.stdout.split(separator: "\n").first { $0.contains("key over http") }
            #expect(
                line?.contains("cannot tell whether a key in openai/\"default\" would go over plain http to 192.0.2.1")
                    == true, "\(locked)")
            #expect(line?.contains("locked") == true, "\(locked)")
        }
    }

    @Test("a keyring daemon that stops while a key is typed is one line in plain words, never a libsecret call's name")
    func daemonStopsDuringKeySet() async throws {
        try await withKeyring { keyring, sandbox in
            let set = try sandbox.start(["key", "set", "openai"], terminal: true)
            // The prompt shows once keep has reached the keyring; it stops before the key is stored.
            #expect(await set.output.wait(for: "(typing is hidden): "), "\(set.output.text)")
            keyring.stop()
            set.write("sk-typed-as-it-stopped\r")
            #expect(await set.exit() == .exited(1))
            let screen = set.output.text
            let said = screen.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("keep:") }
            #expect(said.count == 1, "\(screen)")
            #expect(
                said.first?.hasPrefix("keep: set of openai/\"default\" failed: no Secret Service answers") == true,
                "\(screen)")
            #expect(!screen.contains("secret_") && !screen.contains("_sync"), "\(screen)")
            #expect(!screen.contains("sk-typed"), "\(screen)")
        }
    }

    @Test("a stopped keyring daemon is told as unreachable, and kept data is left for when it is back")
    func stoppedDaemon() async throws {
        try await withKeyring { keyring, sandbox in
            let server = try KeptModelServer(models: ["model-a"])
            #expect(try await sandbox.run("settings", "set", "baseUrl", server.baseURL).status == .exited(0))
            #expect(try await sandbox.run("engines").status == .exited(0))
            #expect(try await sandbox.run(["key", "set", "openai"], input: "sk-in-the-keyring").status == .exited(0))

            keyring.stop()
            let status = try await sandbox.run("key", "status", "openai")
            #expect(status.status == .exited(1))
            #expect(
                status.stdout.hasPrefix("openai/\"default\"  cannot tell: no Secret Service answers\n"), "\(status)")
            let engines = try await sandbox.run("engines")
            #expect(engines.status == .exited(1), "\(engines)")
            #expect(
                engines.stderr.hasPrefix("keep: cannot tell: the key that seals kept data could not be read ("),
                "\(engines)")
            #expect(engines.stderr.contains("no Secret Service answers"), "\(engines)")
            #expect(!engines.stderr.contains("no secure store"), "the rows are intact, not absent: \(engines)")

            try await keyring.restart()
            let back = try await sandbox.run("engines")
            #expect(!back.stdout.contains("kept: nothing yet"), "\(back)")
            #expect(try await sandbox.run("key", "status", "openai").stdout.hasPrefix("openai/\"default\"  configured"))
        }
    }

    @Test("another application's items sharing keep's attributes are never read, deleted, or make kept data clear")
    func foreignItems() async throws {
        try await withKeyring { keyring, sandbox in
            let tool = tool(keyring)
            let theirKey: KeyValuePairs = ["app": "keep", "slot": "openai", "account": "default", "owner": "otherapp"]
            let theirDataKey: KeyValuePairs = ["app": "keep", "key": "kept-data-key", "owner": "otherapp"]
            try await tool.store(label: "other", theirKey, value: "sk-not-keeps")
            try await tool.store(label: "other", theirDataKey, value: "not keep's data key")
            #expect(try await tool.search(["app": "keep"]).count == 2, "the planted items are there")

            let server = try KeptModelServer(models: ["model-a"])
            #expect(try await sandbox.run("settings", "set", "baseUrl", server.baseURL).status == .exited(0))
            #expect(try await sandbox.run("engines").status == .exited(0))
            let again = try await sandbox.run("engines")
            #expect(!again.stdout.contains("kept: nothing yet"), "kept data is kept: \(again)")
            #expect(!again.stderr.contains("cleared"), "\(again)")
            #expect(server.requests.allSatisfy { $0.header("Authorization") == nil }, "their key was sent")

            let status = try await sandbox.run("key", "status", "openai")
            #expect(status.stdout.hasPrefix("openai/\"default\"  not set\n"), "\(status)")
            let removed = try await sandbox.run("key", "rm", "openai")
            #expect(removed.stdout == "There was no key for openai/\"default\".\n", "\(removed)")
            #expect(try await sandbox.run(["key", "set", "openai"], input: "sk-keeps-own").status == .exited(0))
            #expect(try await sandbox.run("key", "rm", "openai").status == .exited(0))

            #expect(try await tool.lookup(theirKey) == "sk-not-keeps")
            #expect(try await tool.lookup(theirDataKey) == "not keep's data key")
            let last = try await sandbox.run("engines")
            #expect(!last.stdout.contains("kept: nothing yet") && !last.stderr.contains("cleared"), "\(last)")
        }
    }

    @Test("a key stored by secret-tool with keep's attributes and a trailing newline is sent without the newline")
    func secretToolKeyIsUsed() async throws {
        try await withKeyring { keyring, sandbox in
            let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
            try await sandbox.useRemote(server)
            try await tool(keyring).store(
                label: "from a shell", ["app": "keep", "slot": "openai", "account": "default"], value: "sk-shell\n")
            #expect(try await sandbox.run("key", "status", "openai").stdout.hasPrefix("openai/\"default\"  configured"))
            let asked = try await sandbox.run("ask", "hi")
            #expect(asked.status == .exited(0), "\(asked)")
            #expect(server.requests.last?.header("Authorization") == "Bearer sk-shell")
        }
    }

    @Test(
        "keep key set refuses a key with an inner line break or control character before storing anything",
        arguments: ["sk-one\ntwo", "sk-one\rtwo", "sk-bell\u{07}", "sk-tab\there", "sk-escape\u{1B}[0m"])
    func keySetRefusesControlCharacters(_ key: String) async throws {
        try await withKeyring { keyring, sandbox in
            let refused = try await sandbox.run(["key", "set", "openai"], input: key + "\n")
            #expect(refused.status == .exited(1), "\(refused)")
            #expect(refused.stderr.contains("a key is one line of printable characters; nothing was stored"))
            #expect(!refused.stderr.contains(key) && !refused.stdout.contains(key))
            #expect(try await tool(keyring).search(["app": "keep"]).count == 0, "something was stored")

            // Its pair: the same key on one line, with the newline a shell adds, is stored trimmed.
            #expect(try await sandbox.run(["key", "set", "openai"], input: "sk-one-line\n").status == .exited(0))
            #expect(try await tool(keyring).lookup(["app": "keep", "slot": "openai"]) == "sk-one-line")
        }
    }

    @Test("a key given as an argument to keep key set is refused without echoing it")
    func keyAsArgument() async throws {
        try await withKeyring { keyring, sandbox in
            let refused = try await sandbox.run("key", "set", "openai", "sk-on-the-command-line")
            #expect(refused.status == .exited(2), "\(refused)")
            #expect(refused.stderr.contains("takes no key on the command line"), "\(refused)")
            #expect(!refused.stderr.contains("sk-on-the") && !refused.stdout.contains("sk-on-the"))
            #expect(try await tool(keyring).search(["app": "keep"]).count == 0)
        }
    }

    @Test("keep settings and keep doctor never read a key's value: the bus carries no GetSecret while they run")
    func settingsAndDoctorReadNoSecret() async throws {
        try await withKeyring { keyring, sandbox in
            let server = try LoopbackServer(LoopbackServer.streaming(["fine"]))
            try await sandbox.useRemote(server)
            #expect(try await sandbox.run(["key", "set", "openai"], input: "sk-never-read\n").status == .exited(0))
            try await BusMonitor.with(keyring.bus) { monitor in
                var shown: [Sandbox.Outcome] = []
                let describing = try await monitor.traffic {
                    for arguments in [["settings"], ["settings", "--json"], ["doctor"], ["doctor", "--json"]] {
                        shown.append(try await sandbox.run(arguments))
                    }
                }
                #expect(describing.contains("member=SearchItems"), "they asked whether a key is there: \(describing)")
                #expect(!describing.contains("member=GetSecret"), "a secret's value crossed the bus: \(describing)")
                #expect(shown[0].stdout.contains("configured"), "settings says the key is there: \(shown[0])")
                #expect(shown.allSatisfy { !$0.stdout.contains("sk-never-read") })

                // The pair: the same monitor sees a question fetch the key it sends.
                let asking = try await monitor.traffic { _ = try await sandbox.run("ask", "hello") }
                #expect(asking.contains("member=GetSecret"), "the monitor missed ask reading the key: \(asking)")
                #expect(server.requests.first?.header("Authorization") == "Bearer sk-never-read")
            }
        }
    }
}

/// keep where no keyring answers at all (no session bus): process memory, and every
/// command says it cannot tell rather than "none".
@Suite("Without a keyring, keep cannot tell")
struct NoKeyringStatesTests {
    @Test("doctor notes a missing keyring when nothing needs a key, and fails when a hosted server does")
    func doctorWithoutAKeyring() async throws {
        let echo = try Sandbox()
        let quiet = try await echo.run("doctor")
        #expect(quiet.status == .exited(0), "the echo engine needs no key: \(quiet)")
        #expect(quiet.stdout.contains("note    secrets"), "\(quiet)")

        let loopback = try Sandbox()
        let server = try LoopbackServer(LoopbackServer.streaming(["ok"]))
        try await loopback.useRemote(server)
        let local = try await loopback.run("doctor")
        #expect(local.stdout.contains("note    secrets"), "\(local)")
        #expect(local.stdout.contains("note    engine"), "\(local)")
        #expect(server.requests.isEmpty, "doctor contacts no server")

        let hosted = try Sandbox()
        #expect(try await hosted.run("settings", "set", "engineId", "remote").status == .exited(0))
        #expect(
            try await hosted.run("settings", "set", "baseUrl", "https://api.example.invalid/v1").status == .exited(0))
        let failing = try await hosted.run("doctor")
        #expect(failing.status == .exited(1), "\(failing)")
        #expect(failing.stdout.contains("problem secrets"), "\(failing)")
        #expect(failing.stdout.contains("cannot be told"), "\(failing)")
    }

    @Test(
        "doctor names a file holding a plaintext key, never the value",
        arguments: [
            ("store.json", #"{"settings/settings":"{\"openaiApiKey\":\"sk-plain-legacy\"}"}"#),
            ("store/settings/settings-aside-20260101", #"{"model":"x","openaiApiKey":"sk-plain-aside"}"#),
        ])
    func plaintextKeys(_ file: String, _ text: String) async throws {
        let sandbox = try Sandbox()
        let clean = try await sandbox.run("doctor")
        #expect(!clean.stdout.contains("plaintext keys"), "\(clean)")
        let path = sandbox.root + "/" + file
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.status == .exited(1), "\(doctor)")
        #expect(doctor.stdout.contains("problem plaintext keys"), "\(doctor)")
        #expect(doctor.stdout.contains(path), "it names the file: \(doctor)")
        #expect(doctor.stdout.contains("keep key set"), "it says how to move it: \(doctor)")
        #expect(!doctor.stdout.contains("sk-plain") && !doctor.stderr.contains("sk-plain"), "never the value")
    }
}
