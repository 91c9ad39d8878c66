import Foundation
import KeepTestSupport
import Testing

/// What keep keeps of a conversation is sealed at rest when a keyring answers: on a real
/// GNOME Keyring of each test's own, no file under the data root holds a word of a chat,
/// a locked keyring or a missing key is said and changes nothing, and without a keyring
/// the chats stay plain and keep says so.
@Suite(
    "Sealed chats",
    .enabled(
        if: ToolRun.isInstalled("gnome-keyring-daemon") && ToolRun.isInstalled("dbus-daemon"),
        "needs gnome-keyring-daemon and dbus-daemon (scripts/lib/packages.sh installs them)"))
struct SealedChatsTests {
    /// Runs `body` with a keyring of its own and a sandbox whose keep uses it.
    private func withKeyring(_ body: (PrivateKeyring, Sandbox) async throws -> Void) async throws {
        try await PrivateKeyring.with { keyring in
            var sandbox = try Sandbox()
            sandbox.extra["DBUS_SESSION_BUS_ADDRESS"] = keyring.bus.address
            try await body(keyring, sandbox)
        }
    }

    /// Every regular file under `root`, by path, with its bytes.
    private func files(under root: String) throws -> [String: Data] {
        var found: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else { return found }
        for case let name as String in walker {
            let path = (root as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            found[path] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return found
    }

    /// The files under `root` whose bytes hold `word` (UTF-8, any case as typed).
    private func holding(_ word: String, under root: String) throws -> [String] {
        try files(under: root).filter { $0.value.range(of: Data(word.utf8)) != nil }.map(\.key).sorted()
    }

    @Test("after turns with unique words, no file under the data root holds any of them")
    func noPlaintextOnDisk() async throws {
        try await withKeyring { _, sandbox in
            let words = ["zyxquorble", "plimfrangent", "vorpteskal"]
            let first = try await sandbox.ask("what is a \(words[0])?")
            _ = try await sandbox.ask("and a \(words[1])?", chat: first)
            _ = try await sandbox.ask("then \(words[2])")
            // Listing and search build the index, titles and postings; it must hold none either.
            let listed = try await sandbox.run("chats")
            #expect(listed.status == .exited(0) && listed.stdout.contains(words[0]), "\(listed)")
            let found = try await sandbox.run("chats", "search", words[1])
            #expect(found.status == .exited(0) && found.stdout.contains(words[1]), "search still works: \(found)")
            #expect(try await sandbox.messages(first).joined().contains(words[1]), "the chat reads")

            // The scan sees a planted positive first.
            let planted = (sandbox.root as NSString).appendingPathComponent("planted")
            try Data("a \(words[0]) here".utf8).write(to: URL(fileURLWithPath: planted))
            #expect(try holding(words[0], under: sandbox.root) == [planted], "the scan finds a planted word")
            try FileManager.default.removeItem(atPath: planted)

            let scanned = try files(under: sandbox.root)
            #expect(scanned.keys.contains { $0.contains("/store/chats/") }, "chats were scanned")
            #expect(scanned.keys.contains { $0.hasSuffix("chat-index.sqlite") }, "the index was scanned")
            for word in words {
                #expect(try holding(word, under: sandbox.root).isEmpty, "no file holds \(word)")
            }
            let settings = try await sandbox.run("settings")
            #expect(settings.stdout.contains("Chats and drafts: sealed under the chats' data key"), "\(settings)")
            let doctor = try await sandbox.run("doctor", "--json")
            #expect(doctor.stdout.contains("\"sealed chats\""), "\(doctor)")
        }
    }

    @Test("a sealed chat swapped with another, or renamed, is refused by name")
    func swappedAndRenamedRefused() async throws {
        try await withKeyring { _, sandbox in
            let one = try await sandbox.ask("first question")
            let two = try await sandbox.ask("second question")
            let chats = (sandbox.root as NSString).appendingPathComponent("store/chats")
            let names = try FileManager.default.contentsOfDirectory(atPath: chats).filter { !$0.hasPrefix(".") }
            #expect(names.count == 2)
            let path = { (id: String) in (chats as NSString).appendingPathComponent(id) }
            // Swapped: the second chat's file holds the first's sealed bytes.
            try FileManager.default.removeItem(atPath: path(two))
            try FileManager.default.copyItem(atPath: path(one), toPath: path(two))
            let swapped = try await sandbox.run("chats", "show", two)
            #expect(swapped.status == .exited(1), "\(swapped)")
            #expect(swapped.stderr.contains(two) && !swapped.stdout.contains("first question"), "\(swapped)")
            // Renamed: the first chat moved to a new name.
            let renamed = "20990101-0000"
            try FileManager.default.moveItem(atPath: path(one), toPath: path(renamed))
            let moved = try await sandbox.run("chats", "show", renamed)
            #expect(moved.status == .exited(1), "\(moved)")
            #expect(moved.stderr.contains(renamed) && !moved.stdout.contains("first question"), "\(moved)")
        }
    }

    @Test("a locked keyring says the chats are sealed and locked, changes nothing, and all is back once unlocked")
    func lockedKeyring() async throws {
        try await withKeyring { keyring, sandbox in
            let id = try await sandbox.ask("a question before the lock")
            let before = try files(under: (sandbox.root as NSString).appendingPathComponent("store"))
            try await keyring.lockDefaultCollection()
            try #require(try await keyring.defaultCollectionIsLocked())

            for arguments in [["chats"], ["chats", "show", id], ["ask", "another"], ["chats", "rm", id]] {
                let run = try await sandbox.run(arguments)
                #expect(run.status == .exited(1), "\(arguments): \(run)")
                #expect(
                    run.stderr.contains("the chats are sealed and the keyring is locked"), "\(arguments): \(run)")
                #expect(!run.stdout.contains("No chats yet"), "never 'no chats': \(run)")
            }
            let settings = try await sandbox.run("settings", "--json")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(settings.stdout.utf8)) as? [String: Any])
            #expect((report["chats"] as? [String: Any])?["state"] as? String == "locked", "\(settings)")
            let doctor = try await sandbox.run("doctor")
            #expect(doctor.stdout.contains("the chats are sealed and the keyring is locked"), "\(doctor)")
            #expect(
                try files(under: (sandbox.root as NSString).appendingPathComponent("store")) == before,
                "nothing was written, deleted or re-sealed")

            try await keyring.restart()
            let listed = try await sandbox.run("chats")
            #expect(listed.status == .exited(0) && listed.stdout.contains(id), "\(listed)")
            #expect(try await sandbox.messages(id).first == "a question before the lock")
        }
    }

    @Test("chats sealed under a key this keyring does not have are said so, and none is deleted")
    func keyGone() async throws {
        try await withKeyring { _, sandbox in
            let id = try await sandbox.ask("sealed under the first keyring")
            try await PrivateKeyring.with { other in
                var elsewhere = sandbox
                elsewhere.extra["DBUS_SESSION_BUS_ADDRESS"] = other.bus.address
                let listed = try await elsewhere.run("chats")
                #expect(listed.status == .exited(1), "\(listed)")
                #expect(listed.stderr.contains("sealed under a key this keyring does not have"), "\(listed)")
                #expect(listed.stderr.contains("keep recovery import"), "it says the way back: \(listed)")
            }
            #expect(FileManager.default.fileExists(atPath: sandbox.file("chats", id)), "the chat is still there")
            #expect(try await sandbox.messages(id).first == "sealed under the first keyring")
        }
    }

    @Test("without a keyring the chats stay plain, and keep settings and doctor say so")
    func plainWithoutKeyring() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("a plain qwertplain question")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sandbox.file("chats", id)))
        #expect(bytes.range(of: Data("qwertplain".utf8)) != nil, "the chat file is plain text")
        let settings = try await sandbox.run("settings")
        #expect(settings.stdout.contains("Chats and drafts: not sealed: no keyring answers"), "\(settings)")
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("not sealed: no keyring answers"), "\(doctor)")
        let chat = try await sandbox.run(["chat"], input: "")
        #expect(chat.stderr.contains("Chats: not sealed: no keyring answers"), "keep says so too: \(chat)")
    }

    @Test("a store that held chats before a keyring answered stays plain until it is sealed")
    func plainBeforeKeyring() async throws {
        try await withKeyring { _, sandbox in
            var bare = sandbox
            bare.extra["DBUS_SESSION_BUS_ADDRESS"] = nil
            let id = try await bare.ask("kept before any keyring")
            _ = try await sandbox.ask("asked with the keyring", chat: id)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: sandbox.file("chats", id)))
            #expect(bytes.range(of: Data("asked with the keyring".utf8)) != nil, "still plain")
            let settings = try await sandbox.run("settings", "--json")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(settings.stdout.utf8)) as? [String: Any])
            #expect((report["chats"] as? [String: Any])?["state"] as? String == "plain", "\(settings)")
        }
    }

    /// The byte offset just past the first `echo: ` after `offset` in `text`.
    private func answered(_ text: String, after offset: Int) -> Int {
        let bytes = Array(text.utf8)
        let tail = bytes.dropFirst(offset)
        guard let start = String(decoding: tail, as: UTF8.self).range(of: "echo: ") else { return bytes.count }
        return offset + String(decoding: tail, as: UTF8.self)[..<start.upperBound].utf8.count
    }

    /// Chats asked plain (no keyring), each with a unique word; answers their ids.
    private func plainChats(_ sandbox: Sandbox, _ count: Int, word: String) async throws -> [String] {
        var bare = sandbox
        bare.extra["DBUS_SESSION_BUS_ADDRESS"] = nil
        var ids: [String] = []
        for number in 0..<count { ids.append(try await bare.ask("question \(number) \(word)\(number)z")) }
        return ids
    }

    /// Whether every chat in `ids` lists, none unreadable.
    private func allReadable(_ sandbox: Sandbox, _ ids: [String]) async throws -> Bool {
        let listed = try await sandbox.run("chats", "--json")
        guard listed.status == .exited(0),
            let report = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        else { return false }
        let listedIds = Set((report["chats"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        let unreadable = report["unreadable"] as? [Any] ?? []
        return listedIds == Set(ids) && unreadable.isEmpty
    }

    @Test("keep chats seal seals a plain store, says once how to make a recovery file, and unseal makes it plain again")
    func sealAndUnseal() async throws {
        try await withKeyring { _, sandbox in
            let ids = try await plainChats(sandbox, 3, word: "kelpwarden")
            #expect(try holding("kelpwarden1z", under: sandbox.root).count >= 1, "plain before")
            let sealed = try await sandbox.run("chats", "seal")
            #expect(sealed.status == .exited(0), "\(sealed)")
            #expect(sealed.stdout.contains("3 chats and drafts sealed"), "\(sealed)")
            #expect(sealed.stdout.contains("keep recovery export FILE"), "it says how to make a recovery file")
            #expect(!sealed.stderr.contains("sealing chats:"), "quiet on a pipe: \(sealed)")
            _ = try await sandbox.run("chats", "search", "kelpwarden1z")
            for number in 0..<3 {
                #expect(try holding("kelpwarden\(number)z", under: sandbox.root).isEmpty, "sealed: \(number)")
            }
            #expect(try await allReadable(sandbox, ids))
            let again = try await sandbox.run("chats", "seal")
            #expect(again.status == .exited(0) && again.stdout.contains("0 chats and drafts sealed"), "\(again)")
            #expect(!again.stdout.contains("keep recovery export"), "said once: \(again)")
            let settings = try await sandbox.run("settings", "--json")
            #expect(settings.stdout.contains("\"state\" : \"sealed\""), "\(settings)")

            let plain = try await sandbox.run("chats", "unseal")
            #expect(plain.status == .exited(0) && plain.stdout.contains("3 chats and drafts made plain"), "\(plain)")
            #expect(try holding("kelpwarden2z", under: sandbox.root).count >= 1, "plain again")
            #expect(try await allReadable(sandbox, ids))
            let found = try await sandbox.run("chats", "search", "kelpwarden2z")
            #expect(found.stdout.contains("kelpwarden2z"), "\(found)")
        }
    }

    @Test("seal and unseal killed at random points lose nothing: every chat reads throughout, and a rerun finishes")
    func killedAnywhere() async throws {
        try await withKeyring { _, sandbox in
            let count = 24
            let ids = try await plainChats(sandbox, count, word: "mossglint")
            var generator = SystemRandomNumberGenerator()
            for round in 0..<8 {
                let command = round % 2 == 0 ? ["chats", "seal"] : ["chats", "unseal"]
                let what = round % 2 == 0 ? "sealing chats" : "making chats plain"
                let process = try sandbox.start(command, terminal: true)
                let point = Int.random(in: 1..<count, using: &generator)
                _ = await process.output.wait(for: "\(what): \(point) of \(count)", seconds: 60)
                process.send(SIGKILL)
                _ = await process.exit()
                #expect(try await allReadable(sandbox, ids), "round \(round): every chat reads after the kill")
            }
            let finished = try await sandbox.run("chats", "seal")
            #expect(finished.status == .exited(0), "\(finished)")
            #expect(try await allReadable(sandbox, ids))
            for number in 0..<count {
                #expect(try holding("mossglint\(number)z", under: sandbox.root).isEmpty, "sealed at the end: \(number)")
            }
            #expect(try await sandbox.messages(ids[5]).first == "question 5 mossglint5z")
        }
    }

    @Test(
        "a recovery file imported into a fresh keyring reads every chat; a wrong passphrase is refused without a hint")
    func recoveryFile() async throws {
        try await withKeyring { _, sandbox in
            let ids = [try await sandbox.ask("recovered question one"), try await sandbox.ask("recovered two")]
            let file = sandbox.directory.appending("chats.recovery")
            let exported = try await sandbox.run(["recovery", "export", file], input: "a long passphrase\n")
            #expect(exported.status == .exited(0), "\(exported)")
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "readable by its owner only")
            let again = try await sandbox.run(["recovery", "export", file], input: "a long passphrase\n")
            #expect(again.status == .exited(1) && again.stderr.contains("no recovery file was written"), "\(again)")

            try await PrivateKeyring.with { fresh in
                var moved = sandbox
                moved.extra["DBUS_SESSION_BUS_ADDRESS"] = fresh.bus.address
                let gone = try await moved.run("chats")
                #expect(gone.status == .exited(1) && gone.stderr.contains("keep recovery import"), "\(gone)")

                let wrong = try await moved.run(["recovery", "import", file], input: "not the passphrase\n")
                #expect(wrong.status == .exited(1), "\(wrong)")
                #expect(
                    wrong.stderr
                        == "keep: the key was not imported: import failed: the passphrase does not open it (or the "
                        + "file was altered)\n", "one refusal, nothing of the key: \(wrong)")

                // A keyring that holds another chats' key keeps it without --replace.
                var other = try Sandbox()
                other.extra["DBUS_SESSION_BUS_ADDRESS"] = fresh.bus.address
                _ = try await other.ask("another store's chat")
                let refused = try await moved.run(["recovery", "import", file], input: "a long passphrase\n")
                #expect(refused.status == .exited(1) && refused.stderr.contains("--replace"), "\(refused)")
                #expect(try await moved.run("chats").status == .exited(1), "still not this store's key")

                let imported = try await moved.run(
                    ["recovery", "import", file, "--replace"], input: "a long passphrase\n")
                #expect(imported.status == .exited(0), "\(imported)")
                #expect(try await allReadable(moved, ids), "every chat reads under the imported key")
                #expect(try await moved.messages(ids[0]).first == "recovered question one")
                let twice = try await moved.run(["recovery", "import", file], input: "a long passphrase\n")
                #expect(twice.status == .exited(0) && twice.stdout.contains("already"), "\(twice)")
            }
        }
    }

    @Test("the lines typed at the chat's prompt are sealed with the chats, and Up still recalls them")
    func historySealed() async throws {
        try await withKeyring { _, sandbox in
            let word = "brindleplume"
            let chat = try sandbox.start(["chat"], terminal: true)
            #expect(await chat.output.wait(for: "> "))
            var offset = chat.output.count
            chat.write("tell me of \(word)\r")
            #expect(await chat.output.wait(for: "echo: ", after: offset))
            #expect(await chat.output.wait(for: "> ", after: answered(chat.output.text, after: offset)))
            chat.write("\u{04}")
            #expect(await chat.exit() == .exited(0))
            #expect(FileManager.default.fileExists(atPath: sandbox.file("history", "questions")), "a history was kept")
            #expect(try holding(word, under: sandbox.root).isEmpty, "no file holds the line typed")

            let again = try sandbox.start(["chat"], terminal: true)
            #expect(await again.output.wait(for: "> "))
            offset = again.output.count
            again.write("\u{1B}[A\r")
            #expect(await again.output.wait(for: "echo: tell me of \(word)", after: offset), "Up recalls it")
            #expect(await again.output.wait(for: "> ", after: answered(again.output.text, after: offset)))
            again.write("\u{04}")
            #expect(await again.exit() == .exited(0))
        }
    }

    @Test("on a new root, commands that only read or describe make no key and no marker; the first chat decides")
    func describingDecidesNothing() async throws {
        try await withKeyring { _, sandbox in
            let marker = sandbox.file("cache", "chats-sealing")
            for arguments in [["settings"], ["doctor"], ["chats"], ["chats", "search", "anything"]] {
                _ = try await sandbox.run(arguments)
            }
            #expect(!FileManager.default.fileExists(atPath: marker), "nothing decided yet")
            let settings = try await sandbox.run("settings", "--json")
            #expect(settings.stdout.contains("\"state\" : \"not yet\""), "\(settings)")
            _ = try await sandbox.ask("the first chat")
            #expect(FileManager.default.fileExists(atPath: marker), "the first chat decided")
            let after = try await sandbox.run("settings", "--json")
            #expect(after.stdout.contains("\"state\" : \"sealed\""), "\(after)")
        }
    }
}
