import Foundation
import Testing

/// The command surface: help everywhere, exit codes, usage errors with the usage line.
@Suite("The command line")
struct CommandLineTests {
    static let commands: [[String]] = [
        [], ["chat"], ["ask"], ["chats"], ["chats", "show"], ["chats", "rm"], ["chats", "search"], ["settings"],
        ["settings", "get"], ["settings", "set"], ["settings", "unset"], ["key"], ["key", "set"], ["key", "status"],
        ["key", "rm"], ["store"], ["store", "get"], ["store", "put"], ["store", "rm"], ["store", "ls"],
        ["store", "clear"], ["doctor"], ["help"],
    ]

    @Test("every command and subcommand answers --help and -h on standard output, exit 0", arguments: commands)
    func helpEverywhere(_ command: [String]) async throws {
        let sandbox = try Sandbox()
        for flag in ["--help", "-h"] {
            let help = try await sandbox.run(command + [flag])
            #expect(help.status == .exited(0), "\(command) \(flag): \(help)")
            #expect(help.stdout.hasPrefix("usage: keep"), "\(command) \(flag): \(help)")
            #expect(help.stderr.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.root), "help touches no data")
    }

    @Test("keep --help points at the guide, which the package holds with the command reference")
    func helpPointsAtTheGuide() async throws {
        let help = try await Sandbox().run(["--help"])
        #expect(help.stdout.contains("docs/keep-guide.md"), "\(help)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/keep-guide.md"), encoding: .utf8)
        #expect(guide.contains("\n## Command reference\n"))
    }

    @Test(
        "each command's help lists under Options what its usage line offers, and the usage offers every option listed",
        arguments: commands.filter { !$0.isEmpty })
    func usageMatchesOptions(_ command: [String]) async throws {
        let help = try await Sandbox().run(command + ["--help"]).stdout
        // The command's own usage: its first line and the lines that go on under it (a
        // subcommand's usage line starts with `keep` again).
        let block = help.components(separatedBy: "\n\n")[0].split(separator: "\n")
        let usage =
            ([block[0]] + block.dropFirst().prefix { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("keep ") })
            .joined(separator: " ")
        let options =
            help.components(separatedBy: "\nOptions:\n").dropFirst().first?
            .components(separatedBy: "\n\n").first ?? ""
        let offered = usage.split(separator: " ").filter { $0.hasPrefix("[-") }
            .map { String($0.dropFirst().prefix { $0 != "]" && $0 != " " }) }
        // An option's row starts two spaces in with its name; a longer indent goes on with its help.
        let listed = options.split(separator: "\n").filter { $0.hasPrefix("  -") }.compactMap { line in
            line.split(separator: " ").first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
        }
        #expect(offered == listed, "\(command): \(help)")
    }

    @Test(
        "a command line that does not fit is a usage error: one line, the usage, exit 2",
        arguments: [
            (["frobnicate"], "keep: unknown command \"frobnicate\"", "usage: keep [COMMAND] [ARGS...]"),
            (["--colour"], "keep: unknown option --colour", "usage: keep [COMMAND] [ARGS...]"),
            (["chats", "--all"], "keep: unknown option --all", "usage: keep chats [--json]"),
            (["chats", "show"], "keep: missing ID", "usage: keep chats show [--json] ID"),
            (["chats", "show", "a", "b"], "keep: unexpected argument \"b\"", "usage: keep chats show"),
            (["ask", "--chat"], "keep: --chat needs a value (ID)", "usage: keep ask [--chat ID] [-c] "),
            (["ask", "--chat", "x", "-c", "hi"], "keep: give --chat ID or -c, not both", "usage: keep ask"),
            (["ask", "--colour=1", "hi"], "keep: unknown option --colour", "usage: keep ask"),
            (["ask", "--json=1", "hi"], "keep: --json takes no value", "usage: keep ask"),
            (["ask", "-t"], "keep: -t needs a value (N)", "usage: keep ask"),
            (["doctor", "--json=yes"], "keep: --json takes no value", "usage: keep doctor [--json]"),
            (["doctor", "--json", "--json"], "keep: --json is given more than once", "usage: keep doctor"),
            (["key"], "keep: key needs a subcommand", "usage: keep key set|status|rm [ARGS...]"),
            (
                ["key", "set", "aws"],
                "keep: \"aws\" is not a slot; the slots are openai, anthropic, google, openrouter, custom",
                "usage: keep key set [--account NAME] SLOT"
            ),
            (
                ["store", "ls", "Chats"],
                "keep: \"Chats\" is not a namespace; the namespaces are chats, settings, drafts, cache, history",
                "usage: keep store ls NAMESPACE"
            ),
            (["settings", "set", "model"], "keep: missing VALUE", "usage: keep settings set KEY VALUE"),
        ])
    func usageErrors(words: [String], error: String, usage: String) async throws {
        let run = try await Sandbox().run(words)
        #expect(run.status == .exited(2), "\(words): \(run)")
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == error, "\(words): \(run)")
        #expect(lines.dropFirst().first?.hasPrefix(usage) == true, "\(words): \(run)")
    }

    @Test("a negative number is a value, and -- ends the options")
    func dashesInValues() async throws {
        let sandbox = try Sandbox()
        let negative = try await sandbox.run("settings", "set", "temperature", "-1")
        #expect(negative.status == .exited(1), "refused by the setting, not taken for an option: \(negative)")
        #expect(negative.stderr == "keep: temperature must be a number from 0 to 2\n")
        let dashed = try await sandbox.run("ask", "--", "--not-an-option")
        #expect(dashed.status == .exited(0), "\(dashed)")
        #expect(dashed.stdout == "echo: --not-an-option\n")
    }

    @Test("keep ask reads the question from standard input when no TEXT is given")
    func askFromStandardInput() async throws {
        let sandbox = try Sandbox()
        let asked = try await sandbox.run(["ask"], input: "a question\nover two lines\n\n")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stdout == "echo: a question\nover two lines\n")
        let empty = try await sandbox.run(["ask"], input: "  \n")
        #expect(empty.status == .exited(2))
        #expect(empty.stderr.hasPrefix("keep: nothing to ask: give the question as TEXT or on standard input\n"))
    }

    @Test("keep store puts, gets, lists and removes values byte for byte")
    func rawStore() async throws {
        let sandbox = try Sandbox()
        let value = "line one\nünïcödé 🙂\n\"quoted\"\n"
        #expect(try await sandbox.run(["store", "put", "cache", "Some Id/../x"], input: value).status == .exited(0))
        let got = try await sandbox.run("store", "get", "cache", "Some Id/../x")
        #expect(got.status == .exited(0))
        #expect(got.stdout == value)
        #expect(
            try String(contentsOfFile: sandbox.file("cache", "~53ome~20~49d~2f~2e~2e~2fx"), encoding: .utf8) == value)
        let listed = try await sandbox.run("store", "ls", "cache")
        #expect(listed.stdout.split(separator: "\n").contains("Some Id/../x"), "\(listed)")
        #expect(try await sandbox.run("store", "rm", "cache", "Some Id/../x").status == .exited(0))

        let absent = try await sandbox.run("store", "get", "cache", "Some Id/../x")
        #expect(absent.status == .exited(1))
        #expect(absent.stderr == "keep: there is no value at cache/\"Some Id/../x\"\n")
        let empty = try await sandbox.run("store", "put", "cache", "")
        #expect(empty.status == .exited(1))
        #expect(empty.stderr.contains("an id cannot be empty"), "\(empty)")
    }

    @Test("keep settings set checks the value and changes nothing when it is refused")
    func settingsValidation() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.run("settings", "set", "model", "llama-3").stdout == "model = llama-3\n")
        let before = try String(contentsOfFile: sandbox.file("settings", "settings"), encoding: .utf8)
        for (key, value, error) in [
            ("engineId", "gpt", "keep: engineId must be one of echo, remote\n"),
            (
                "baseUrl", "ftp://x",
                "keep: baseUrl must be an http:// or https:// URL with a host (and a port from 1 to 65535 if any), "
                    + "without a user, password, query or fragment, and not an IPv6 address in brackets, which the "
                    + "HTTP library keep uses on Linux cannot connect to (use 127.0.0.1 for this machine)\n"
            ),
            (
                "nonsense", "1",
                "keep: there is no setting called \"nonsense\"; the settings are engineId, baseUrl, model, temperature, system, maxTokens, keySlot, keyAccount, openaiApiKey, keyOverHttpHosts, answerLimitMiB, answerTimeoutSeconds, chatHistory\n"
            ),
        ] {
            let refused = try await sandbox.run("settings", "set", key, value)
            #expect(refused.status == .exited(1), "\(key): \(refused)")
            #expect(refused.stderr == error)
        }
        let secret = try await sandbox.run("settings", "set", "openaiApiKey", "sk-never-in-a-file")
        #expect(secret.status == .exited(1))
        #expect(secret.stderr.contains("store it with `keep key set openai`"))
        #expect(!secret.stderr.contains("sk-never-in-a-file"))
        #expect(try String(contentsOfFile: sandbox.file("settings", "settings"), encoding: .utf8) == before)
        #expect(try await sandbox.run("settings", "get", "model").stdout == "llama-3\n")
        // Without a keyring keep cannot tell whether a key is stored: it says so, never "not set".
        let secretState = try await sandbox.run("settings", "get", "openaiApiKey")
        #expect(secretState.status == .exited(1))
        #expect(
            secretState.stderr.hasPrefix(
                "keep: openaiApiKey: cannot tell whether a key is stored: connect failed: there is no D-Bus session bus"
            ),
            "\(secretState)")
        #expect(
            try await sandbox.run("settings", "unset", "model").stdout == "model is back to its default (default)\n")
    }

    @Test("keep settings --json lists every setting, secrets as configured or not, and the honest warning")
    func settingsReport() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.run("settings", "set", "engineId", "remote").status == .exited(0))
        let shown = try await sandbox.run("settings", "--json")
        #expect(shown.status == .exited(0))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let rows = try #require(report["settings"] as? [[String: Any]])
        #expect(
            rows.map { $0["key"] as? String } == [
                "engineId", "baseUrl", "model", "temperature", "system", "maxTokens", "keySlot", "keyAccount",
                "openaiApiKey", "keyOverHttpHosts", "answerLimitMiB", "answerTimeoutSeconds", "chatHistory",
            ])
        #expect(rows[0]["value"] as? String == "remote" && rows[0]["isSet"] as? Bool == true)
        #expect(rows[3]["value"] as? Double == 0.7 && rows[3]["isSet"] as? Bool == false)
        #expect(rows[8]["secret"] as? Bool == true && rows[8]["configured"] == nil, "no keyring: cannot tell")
        #expect((rows[8]["problem"] as? String)?.hasPrefix("cannot tell: connect failed: there is no D-Bus") == true)
        #expect(rows[8]["value"] == nil, "a secret row has no value")
        let secrets = try #require(report["secrets"] as? [String: Any])
        #expect(secrets["protection"] as? String == "processMemory")
        #expect(secrets["hardwareBacked"] as? Bool == false)
        #expect((secrets["warning"] as? String)?.contains("no keyring answers") == true)

        let text = try await sandbox.run("settings")
        #expect(text.stdout.contains(/engineId +remote/), "\(text)")
        #expect(text.stderr.contains("keep: warning: no keyring answers"))
    }

    @Test("keep key set refuses when keys can only be held in process memory, and says how to get a keyring")
    func keySetWithoutAKeyring() async throws {
        let sandbox = try Sandbox()
        let set = try await sandbox.run(["key", "set", "openai"], input: "sk-would-be-lost\n")
        #expect(set.status == .exited(1))
        #expect(set.stderr.hasPrefix("keep: cannot store the key for openai/\"default\": no keyring answers"), "\(set)")
        #expect(set.stderr.contains("gone when this command exits"))
        #expect(set.stderr.contains("gnome-keyring-daemon --components=secrets --unlock"))
        #expect(set.stderr.split(separator: "\n").count == 1, "one line")
        #expect(!set.stderr.contains("sk-would-be-lost"))

        let status = try await sandbox.run("key", "status", "openai")
        #expect(status.status == .exited(1), "cannot tell is not a success")
        #expect(
            status.stdout.hasPrefix(
                "openai/\"default\"  cannot tell: there is no D-Bus session bus\nKeys are kept in: process memory\n"),
            "\(status)")
    }

    @Test("keep doctor says what is wrong, and exits 1 when something needs the user")
    func doctor() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.ask("hello")
        try Data("{".utf8).write(to: URL(fileURLWithPath: sandbox.file("chats", "broken")))
        try Data("left over".utf8).write(to: URL(fileURLWithPath: sandbox.file("chats", ".keep-tmp-0123")))

        let checked = try await sandbox.run("doctor", "--json")
        #expect(checked.status == .exited(1), "\(checked)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])
        #expect(report["dataRoot"] as? String == sandbox.root)
        #expect(report["needsUser"] as? Bool == true)
        let checks = try #require(report["checks"] as? [[String: Any]])
        func check(_ name: String) -> [String: Any]? { checks.first { $0["name"] as? String == name } }
        #expect(check("data root")?["status"] as? String == "ok")
        #expect(check("temp files")?["status"] as? String == "note")
        #expect((check("temp files")?["detail"] as? String)?.contains("store/chats/.keep-tmp-0123") == true)
        #expect(check("chats")?["status"] as? String == "problem")
        #expect((check("chats")?["detail"] as? String)?.contains("chat \"broken\" cannot be read") == true)
        #expect(check("secrets")?["status"] as? String == "note", "no keyring here, and the echo engine needs no key")
        #expect(check("settings file")?["status"] as? String == "ok")

        let text = try await sandbox.run("doctor")
        #expect(text.status == .exited(1))
        #expect(text.stdout.hasSuffix("Something needs your attention.\n"))
    }
}
