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
}
