import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// keep's kept data with a real Secret Service holding the data key: readings sealed in
/// `kept.sqlite`, shown kept then fresh, what's new, forgetting, and a lost key.
///
/// The data key is one item in the shared keyring (`app keep key kept-data-key`) and one
/// test here deletes it, so these tests run one at a time. (The other suites never make
/// the key: `keep settings` and `keep doctor` make none before anything is kept.)
@Suite(
    "keep's kept data with a keyring", .serialized,
    .onTheScriptsKeyring)
struct KeptDataTests {
    private let unique = UUID().uuidString.lowercased().prefix(12)

    /// A sandbox with a keyring whose baseUrl is `server`.
    private func sandbox(_ server: KeptModelServer) async throws -> Sandbox {
        let sandbox = try Sandbox(keyring: true)
        let set = try await sandbox.run("settings", "set", "baseUrl", server.baseURL)
        guard set.status == .exited(0) else { throw SandboxFailure("settings set baseUrl failed:\n\(set)") }
        return sandbox
    }

    private var keptFile: (Sandbox) -> String { { $0.root + "/kept.sqlite" } }

    @Test(
        "keep engines keeps its readings sealed in kept.sqlite: sqlite3 shows owner-prefixed tables and no plaintext, in the file or its WAL"
    )
    func readingsAreSealed() async throws {
        let models = ["private-model-\(unique)", "other-private-\(unique)"]
        let server = try KeptModelServer(models: models, banner: "private-banner-\(unique)")
        let sandbox = try await sandbox(server)
        let needles = models + [server.baseURL, "127.0.0.1:\(server.server.port)", server.banner, "firstSeen"]

        // The scans see a value in clear: a kept.sqlite the sqlite3 tool writes in another sandbox.
        let probe = try Sandbox()
        let planted = "planted-\(unique)"
        try FileManager.default.createDirectory(atPath: probe.root, withIntermediateDirectories: true)
        _ = try await SQLiteTool.output(
            keptFile(probe), "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('\(planted)');")
        #expect(try KeptFiles(probe.root).contain(planted))
        #expect(try await SQLiteTool.output(keptFile(probe), ".dump").contains(planted))

        let first = try await sandbox.run("engines")
        #expect(first.status == .exited(0), "\(first)")
        #expect(first.stdout.contains("2 models, read just now"), "\(first)")
        // A keep that holds the database open, so the next run's writes stay in the WAL.
        let holder = try sandbox.start(["chat"])
        #expect(await holder.errors?.wait(for: "new chat") == true)
        let second = try await sandbox.run("engines")
        #expect(second.status == .exited(0), "\(second)")
        #expect(FileManager.default.fileExists(atPath: keptFile(sandbox) + "-wal"), "the WAL is there to scan")

        let tables = try await SQLiteTool.output(keptFile(sandbox), ".tables").split(whereSeparator: \.isWhitespace)
        #expect(
            tables.sorted() == [
                "chats_preferences", "engines_markers", "engines_preferences", "engines_readings", "keep_migrations",
                "keep_vault",
            ])
        #expect(
            try await SQLiteTool.output(
                keptFile(sandbox), "SELECT kind, shape_version FROM engines_readings ORDER BY kind;")
                == "health|1\nmodels|1\n")
        let dump = try await SQLiteTool.output(keptFile(sandbox), ".dump")
        let scan = try KeptFiles(sandbox.root)
        #expect(scan.names == ["kept.sqlite", "kept.sqlite-shm", "kept.sqlite-wal", "kept.sqlite.lock"])
        for needle in needles {
            #expect(!dump.contains(needle), "\(needle) in the dump")
            #expect(try !scan.contain(needle), "\(needle) in the database file, its WAL or its shared memory")
        }
        holder.closeInput()
        #expect(await holder.exit() == .exited(0))
        let after = try KeptFiles(sandbox.root)
        for needle in needles { #expect(try !after.contain(needle), "\(needle) once every keep has exited") }
    }

    @Test("restarting shows the kept reading with its age before the fresh one")
    func keptBeforeFresh() async throws {
        let server = try KeptModelServer(models: ["a-\(unique)", "b-\(unique)"])
        let sandbox = try await sandbox(server)
        let first = try await sandbox.run("engines")
        #expect(first.stdout.contains("    kept: nothing yet\n"), "\(first)")

        server.list(["a-\(unique)", "b-\(unique)", "c-\(unique)"])
        let again = try await sandbox.run("engines")
        #expect(again.status == .exited(0), "\(again)")
        let keptLine = #/ {4}kept: 2 models, read (just now|\d+ s ago); answered/#
        let kept = try #require(again.stdout.firstRange(of: keptLine))
        let fresh = try #require(again.stdout.firstRange(of: "    now:  3 models, read just now"))
        #expect(kept.lowerBound < fresh.lowerBound, "the kept reading is shown first:\n\(again.stdout)")
        #expect(again.stdout.contains("(kept-e2e-server)"), "what the server says about itself")
        #expect(again.stdout.contains("    models: a-\(unique), b-\(unique), c-\(unique)\n"))
    }

    @Test("a model is chosen only from a fresh list; from a kept one it is refused with the reading's age")
    func choosingWaitsForAFreshList() async throws {
        let server = try KeptModelServer(models: ["small-\(unique)", "large-\(unique)"])
        let sandbox = try await sandbox(server)
        #expect(try await sandbox.run("engines").status == .exited(0))

        server.setDown(true)
        let shown = try await sandbox.run("engines")
        #expect(shown.stdout.contains("    models (kept, read "), "\(shown)")
        #expect(shown.stdout.contains("keep engines use MODEL (waits for a fresh model list; this one was read "))
        let refused = try await sandbox.run("engines", "use", "large-\(unique)")
        #expect(refused.status == .exited(1), "\(refused)")
        #expect(refused.stderr.contains("it waits for a fresh reading; the one kept was read "), "\(refused)")
        #expect(refused.stderr.contains("(reading it now: it answered HTTP 503)"), "\(refused)")
        #expect(try await sandbox.run("settings", "get", "model").stdout == "default\n")

        server.setDown(false)
        let chosen = try await sandbox.run("engines", "use", "large-\(unique)")
        #expect(chosen.status == .exited(0), "\(chosen)")
        #expect(chosen.stdout.hasPrefix("The remote engine now asks \(server.baseURL) for large-\(unique).\n"))
        #expect(try await sandbox.run("settings", "get", "model").stdout == "large-\(unique)\n")
        let unlisted = try await sandbox.run("engines", "use", "huge-\(unique)")
        #expect(unlisted.status == .exited(1))
        #expect(unlisted.stderr.contains("does not list it"), "\(unlisted)")
    }

    @Test("keep whatsnew reports a model the server added, once")
    func whatsNew() async throws {
        let server = try KeptModelServer(models: ["a-\(unique)", "b-\(unique)"])
        let sandbox = try await sandbox(server)
        let before = try await sandbox.run("whatsnew")
        #expect(before.stdout == "Nothing new since you looked.\n", "keep has read no server yet: \(before)")
        #expect(try await sandbox.run("engines").status == .exited(0))
        let first = try await sandbox.run("whatsnew")
        #expect(first.stdout.contains("\(server.baseURL): 2 models, a first look"), "\(first)")

        server.list(["a-\(unique)", "b-\(unique)", "c-\(unique)"])
        let news = try await sandbox.run("whatsnew")
        #expect(news.status == .exited(0), "\(news)")
        #expect(
            news.stdout.hasPrefix("\(server.baseURL): 1 new model since you looked (read just now)\n  c-\(unique)\n"))
        #expect(try await sandbox.run("whatsnew").stdout == "Nothing new since you looked.\n")

        server.list(["a-\(unique)", "b-\(unique)", "c-\(unique)", "d-\(unique)"])
        let json = try await sandbox.run("whatsnew", "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let items = try #require(report["news"] as? [[String: Any]], "one object, its news a list")
        #expect(items.count == 1)
        #expect(items.first?["items"] as? [String] == ["d-\(unique)"])
        #expect(items.first?["firstLook"] as? Bool == false)
    }

    @Test("keep engines forget URL deletes every row about that server, spelled any way")
    func forgetting() async throws {
        let server = try KeptModelServer(models: ["a-\(unique)"])
        let sandbox = try await sandbox(server)
        #expect(try await sandbox.run("engines").status == .exited(0))
        #expect(try await sandbox.run("whatsnew").status == .exited(0))
        let counts = "SELECT (SELECT count(*) FROM engines_readings) || ' ' || (SELECT count(*) FROM engines_markers);"
        #expect(try await SQLiteTool.output(keptFile(sandbox), counts) == "2 1\n")

        let spelled = server.baseURL.replacingOccurrences(of: "http://", with: "HTTP://") + "/"
        let forgot = try await sandbox.run("engines", "forget", spelled)
        #expect(forgot.status == .exited(0), "\(forgot)")
        #expect(forgot.stdout == "Forgot \(server.baseURL): 3 kept rows deleted.\n")
        #expect(try await SQLiteTool.output(keptFile(sandbox), counts) == "0 0\n")
        #expect(
            try await sandbox.run("engines", "forget", server.baseURL).stdout
                == "Nothing was kept about \(server.baseURL).\n")
        let bad = try await sandbox.run("engines", "forget", "ftp://nowhere")
        #expect(bad.status == .exited(1))
        #expect(bad.stderr.contains("is not an http or https URL"), "\(bad)")
    }

    @Test(
        "deleting the data key from the keyring leads to a clean restart with a one-time notice, chats and settings untouched"
    )
    func lostKey() async throws {
        let server = try KeptModelServer(models: ["a-\(unique)", "b-\(unique)"])
        let sandbox = try await sandbox(server)
        let chat = try await sandbox.ask("kept across a key loss")
        #expect(try await sandbox.run("engines").status == .exited(0))
        #expect(try await sandbox.run("engines", "retention", "9").status == .exited(0))

        try await SecretTool.clearDataKey()

        let restart = try await sandbox.run("engines")
        #expect(restart.status == .exited(0), "\(restart)")
        #expect(restart.stderr.contains("keep: Saved data was cleared ("), "\(restart)")
        #expect(restart.stderr.contains("A new key was made; nothing else was touched."))
        #expect(restart.stdout.contains("Servers (readings are kept 30 days):"), "the preference went with the key")
        #expect(restart.stdout.contains("    kept: nothing yet\n"), "\(restart)")
        #expect(restart.stdout.contains("    now:  2 models, read just now"))

        let next = try await sandbox.run("engines")
        #expect(!next.stderr.contains("Saved data was cleared"), "told once: \(next)")
        #expect(next.stdout.contains("    kept: 2 models, read "), "kept again under the new key: \(next)")
        #expect(try await sandbox.messages(chat) == ["kept across a key loss", "echo: kept across a key loss"])
        #expect(try await sandbox.run("settings", "get", "baseUrl").stdout == server.baseURL + "\n")
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("kept data      sealed in \(keptFile(sandbox))"), "\(doctor)")
    }

    @Test("keep settings and keep doctor say where kept data is sealed and how long readings are kept")
    func settingsAndDoctorWithAKeyring() async throws {
        let server = try KeptModelServer(models: ["a-\(unique)"])
        let sandbox = try await sandbox(server)
        let before = try await sandbox.run("settings")
        #expect(before.stdout.contains("Kept data (readings, markers, preferences): nothing kept yet"), "\(before)")
        #expect(!FileManager.default.fileExists(atPath: keptFile(sandbox)), "describing kept data makes none")

        #expect(try await sandbox.run("engines").status == .exited(0))
        #expect(
            try await sandbox.run("engines", "retention", "forever").stdout
                == "Readings are now kept until the server is forgotten.\n")
        let settings = try await sandbox.run("settings")
        #expect(
            settings.stdout.contains(
                "Kept data (readings, markers, preferences): sealed in \(keptFile(sandbox)), under a key in the keyring\n"
                    + "Readings are kept until the server is forgotten"), "\(settings)")
        let json = try await sandbox.run("settings", "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let kept = try #require(report["kept"] as? [String: Any])
        #expect(kept["kept"] as? Bool == true)
        #expect(kept["retention"] as? String == "until the server is forgotten")
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("1 server read; readings kept until the server is forgotten"), "\(doctor)")
        #expect(doctor.status == .exited(0), "\(doctor)")
    }
}

/// keep's kept data without a keyring, and what it sends: nothing keyring-bound here, so
/// these run anywhere.
@Suite("keep's kept data without a keyring")
struct KeptWithoutKeyringTests {
    @Test("without a keyring nothing is kept: keep engines still reads the server, and settings and doctor say why")
    func nothingKept() async throws {
        let server = try KeptModelServer(models: ["a", "b"])
        let sandbox = try Sandbox()
        #expect(try await sandbox.run("settings", "set", "baseUrl", server.baseURL).status == .exited(0))
        let engines = try await sandbox.run("engines")
        #expect(engines.status == .exited(0), "\(engines)")
        #expect(engines.stdout.contains("    now:  2 models, read just now"))
        let why =
            "nothing is kept between launches: there is no secure store (keyring) for the key that seals kept data"
        #expect(engines.stderr.contains("keep: warning: \(why)"), "\(engines)")
        let again = try await sandbox.run("engines")
        #expect(again.stdout.contains("    kept: nothing yet\n"), "nothing outlived the first run: \(again)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/kept.sqlite"))

        let settings = try await sandbox.run("settings")
        #expect(settings.stdout.contains("Kept data (readings, markers, preferences): \(why)\n"), "\(settings)")
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("kept data      \(why)"), "\(doctor)")
    }

    @Test("keep engines sends the remote engine's key when there is one, and no Authorization header without one")
    func theKeyIsSentOnlyWhenSet() async throws {
        let server = try KeptModelServer(models: ["a"])
        var sandbox = try Sandbox()
        #expect(try await sandbox.run("settings", "set", "baseUrl", server.baseURL).status == .exited(0))
        #expect(try await sandbox.run("engines").status == .exited(0))
        #expect(server.requests.last?.header("Authorization") == nil)

        let key = "sk-e2e-\(UUID().uuidString)"
        sandbox.extra["OPENAI_API_KEY"] = key
        let keyed = try await sandbox.run("engines", "--json")
        #expect(keyed.status == .exited(0), "\(keyed)")
        #expect(server.requests.last?.header("Authorization") == "Bearer \(key)")
        #expect(!keyed.stdout.contains(key) && !keyed.stderr.contains(key))
        #expect(server.requests.map(\.path) == ["/v1/models", "/v1/models"])
    }

    @Test("a retention outside 1 to 365 days is refused, and forever is accepted")
    func retentionBounds() async throws {
        let sandbox = try Sandbox()
        for days in ["0", "366", "soon"] {
            let refused = try await sandbox.run("engines", "retention", days)
            #expect(refused.status == .exited(1), "\(refused)")
            #expect(refused.stderr.contains("set how long readings are kept failed:"), "\(refused)")
        }
        // Without a keyring nothing is kept between launches: a retention is refused, not said to be set.
        let unkept = try await sandbox.run("engines", "retention", "365")
        #expect(unkept.status == .exited(1), "\(unkept)")
        #expect(unkept.stderr.hasPrefix("keep: nothing is kept between launches"), "\(unkept)")
        #expect(!unkept.stdout.contains("now kept"), "\(unkept)")
    }
}

/// The kept-data database's files under a data root (`kept.sqlite` and its `-wal` and
/// `-shm`), as raw bytes. (The settings file beside them holds `baseUrl` in clear, as a
/// setting; kept data must not.)
struct KeptFiles {
    let root: String
    let names: [String]

    init(_ root: String) throws {
        self.root = root
        names = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix("kept.sqlite") }
            .sorted()
    }

    /// Whether any of the files holds `text`'s bytes.
    func contain(_ text: String) throws -> Bool {
        try names.contains { name in
            try Data(contentsOf: URL(fileURLWithPath: root + "/" + name)).range(of: Data(text.utf8)) != nil
        }
    }
}

/// `secret-tool`, the independent client the kept-data tests check with.
enum SecretTool {
    /// Deletes keep's data key from the keyring, as `secret-tool clear` does for a user.
    static func clearDataKey() async throws {
        try await ToolRun.run(
            "/usr/bin/secret-tool", ["clear", "app", "keep", "key", "kept-data-key"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": Sandbox.busAddress ?? "", "PATH": "/usr/bin:/bin"]
        ).succeeded("secret-tool clear")
    }
}
