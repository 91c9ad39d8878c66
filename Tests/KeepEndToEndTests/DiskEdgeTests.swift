import Foundation
import KeepConformance
import KeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// keep where it meets a disk it did not write: one damaged file stays that file's
/// problem, a migration finishes, and doctor says what the commands find.
@Suite("The disk edge")
struct DiskEdgeTests {
    /// The command that runs keep as an unprivileged user, when the tests run as root (whom
    /// EACCES never stops); empty when they already run unprivileged; `nil` when neither works.
    static let unprivileged: [String]? = {
        guard getuid() == 0 else { return [] }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
        return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    }()

    /// Whether this process may make a mount namespace and mount a tmpfs in it.
    static let mayMount: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "/bin/sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        return probe.waitForExit() == 0
    }()

    /// `keep …` run inside a mount namespace of its own, with a small tmpfs at `dataHome`
    /// prepared by `script` first (`$1` is the mount point).
    static func inTmpfs(_ dataHome: String, _ script: String) -> [String] {
        [
            "/usr/bin/unshare", "-m", "/bin/sh", "-c",
            #"mount -t tmpfs -o size=256k,mode=0700 tmpfs "$1" || exit 97; "# + script + #"; shift; exec "$@""#,
            "sh", dataHome,
        ]
    }

    // MARK: - Damage stays local

    @Test(
        "a chat keep may not read (EACCES) is that chat's problem: chats, search, -c and doctor go on with the rest",
        .enabled(if: unprivileged != nil, "needs setpriv to run keep unprivileged: as root, EACCES never happens"))
    func aRefusedChatStaysLocal() async throws {
        // Under /tmp, so the unprivileged keep can reach it from /.
        let directory = try TemporaryDirectory(prefix: "keep-e2e-nobody", under: "/tmp")
        #expect(chmod(directory.path, 0o755) == 0)
        var sandbox = try Sandbox(directory: directory)
        let good = try await sandbox.ask("needle, still readable")
        let refused = try await sandbox.ask("needle, refused")  // the chat answered last
        if getuid() == 0 { try Self.giveAway(directory.path) }
        #expect(chmod(sandbox.file("chats", refused), 0) == 0)
        sandbox.launcher = try await Self.unprivileged(in: directory)

        // It would have seen the refusal: the unprivileged keep cannot read that file.
        let shown = try await sandbox.run("chats", "show", refused)
        #expect(shown.status == .exited(1) && shown.stderr.contains("EACCES"), "\(shown)")

        let listed = try await sandbox.run("chats")
        #expect(listed.status == .exited(0), "\(listed)")
        #expect(listed.stdout.contains("\(good)  "), "\(listed)")
        #expect(listed.stdout.contains("\(refused)  UNREADABLE: ") && listed.stdout.contains("EACCES"), "\(listed)")
        let found = try await sandbox.run("chats", "search", "needle")
        #expect(found.status == .exited(0) && found.stdout.contains(good), "\(found)")

        let continued = try await sandbox.run("ask", "-c", "and then?")
        #expect(continued.status == .exited(0), "\(continued)")
        #expect(continued.chatId == good, "\(continued)")
        #expect(continued.stderr.contains("continuing chat \"\(good)\" instead"), "\(continued)")
        #expect(continued.stderr.contains(refused), "it names the chat it did not continue: \(continued)")

        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("1 of 2 chats cannot be read"), "\(doctor)")
        #expect(doctor.stdout.contains(refused), "\(doctor)")
    }

    @Test("a symlinked chat is listed as unreadable, and never followed")
    func aSymlinkedChatIsUnreadable() async throws {
        let sandbox = try Sandbox()
        let good = try await sandbox.ask("the real one")
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.file("chats", "linked"), withDestinationPath: sandbox.file("chats", good))
        let listed = try await sandbox.run("chats")
        #expect(listed.status == .exited(0), "\(listed)")
        #expect(listed.stdout.contains("\(good)  "))
        #expect(listed.stdout.contains("linked  UNREADABLE: ") && listed.stdout.contains("symbolic link"), "\(listed)")
        let search = try await sandbox.run("chats", "search", "real")
        #expect(search.status == .exited(0) && search.stdout.contains(good), "\(search)")
    }

    @Test("in the interactive chat, /chats lists the readable chats and names a symlinked one as unreadable")
    func interactiveChatsGoesOn() async throws {
        let sandbox = try Sandbox()
        let good = try await sandbox.ask("the real one")
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.file("chats", "linked"), withDestinationPath: sandbox.file("chats", good))
        let chat = try sandbox.start([], terminal: true)
        #expect(await chat.output.wait(for: "/chats to list your"))
        let mark = chat.output.count
        chat.write("/chats\r")
        #expect(await chat.output.wait(for: "\(good)  ", after: mark))
        #expect(await chat.output.wait(for: "linked  UNREADABLE: ", after: mark))
        chat.write("/quit\r")
        #expect(await chat.exit() == .exited(0))
    }

    @Test(
        "a symlinked settings file is an unreadable settings file: keep starts on the defaults, warns, never writes through"
    )
    func aSymlinkedSettingsFile() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.run("settings", "set", "engineId", "echo").status == .exited(0))
        let dotfile = sandbox.directory.appending("dotfiles-settings.json")
        try FileManager.default.moveItem(atPath: sandbox.file("settings", "settings"), toPath: dotfile)
        let original = try String(contentsOfFile: dotfile, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.file("settings", "settings"), withDestinationPath: dotfile)

        let asked = try await sandbox.run("ask", "hello")
        #expect(asked.status == .exited(0), "\(asked)")
        #expect(asked.stderr.contains("warning: the settings file cannot be read"), "\(asked)")
        #expect(asked.stderr.contains("symbolic link"), "\(asked)")
        let set = try await sandbox.run("settings", "set", "engineId", "remote")
        #expect(set.status == .exited(1), "\(set)")
        #expect(try String(contentsOfFile: dotfile, encoding: .utf8) == original)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: sandbox.file("settings", "settings")) == dotfile)
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("settings file") && doctor.stdout.contains("symbolic link"), "\(doctor)")
    }

    @Test("a draft that cannot be read never hides its chat, and asking in that chat never writes over it")
    func anUnreadableDraft() async throws {
        let sandbox = try Sandbox()
        let id = try await sandbox.ask("first question")
        try FileManager.default.createDirectory(
            atPath: "\(sandbox.root)/store/drafts", withIntermediateDirectories: true)
        try Data([0xff, 0xfe, 0x00]).write(to: URL(fileURLWithPath: sandbox.file("drafts", id)))

        let shown = try await sandbox.run("chats", "show", id)
        #expect(shown.status == .exited(0), "\(shown)")
        #expect(shown.stdout.contains("first question"), "\(shown)")
        #expect(shown.stderr.contains("the draft of chat \"\(id)\" cannot be read"), "\(shown)")

        let asked = try await sandbox.run("ask", "--chat", id, "second question")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(asked.stderr.contains("draft"), "\(asked)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.file("drafts", id))) == Data([0xff, 0xfe, 0x00]))
        // The user's word: removing the chat removes its draft too.
        #expect(try await sandbox.run("chats", "rm", id).status == .exited(0))
        #expect(!FileManager.default.fileExists(atPath: sandbox.file("drafts", id)))
    }

    // MARK: - A migration that finishes

    @Test("a store.json member that can never be copied is reported once; the copy finishes and deletions stick")
    func aMigrationFinishes() async throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.root, withIntermediateDirectories: true)
        let chat =
            #"{\"version\":1,\"id\":\"old\",\"title\":\"from before\",\"created\":\"2025-01-01T00:00:00.000Z\",\"updated\":\"2025-01-01T00:00:00.000Z\",\"messages\":[]}"#
        let legacy = "{\"keep.chats.old\": \"\(chat)\", \"keep.chats.number\": 42}"
        try Data(legacy.utf8).write(to: URL(fileURLWithPath: sandbox.root + "/store.json"))

        let first = try await sandbox.run("chats")
        #expect(first.stdout.contains("old  "), "\(first)")
        #expect(first.stderr.contains("1 of its values can never be copied"), "\(first)")
        #expect(first.stderr.contains("keep.chats.number"), "\(first)")
        let second = try await sandbox.run("chats")
        #expect(second.stderr.isEmpty, "reported once: \(second)")

        #expect(try await sandbox.run("chats", "rm", "old").status == .exited(0))
        let cleared = try await sandbox.run("store", "clear", "cache")
        #expect(cleared.status == .exited(0), "\(cleared)")
        #expect(cleared.stderr.contains("migrated-from-store-json"), "\(cleared)")
        let after = try await sandbox.run("chats")
        #expect(!after.stdout.contains("old  "), "a removed chat stays removed: \(after)")
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("keep.chats.number"), "\(doctor)")
    }

    // MARK: - Doctor tells the truth

    @Test(
        "on a full disk doctor says the data root cannot be written, and a failed write names the chat, not a temp file",
        .enabled(if: mayMount, "needs a mount namespace (unshare -m) to mount a small tmpfs"))
    func aFullDisk() async throws {
        var sandbox = try Sandbox()
        let fill = #"mkdir -p "$1/keep/store/chats" "$1/keep/store/drafts"; cat /dev/zero > "$1/fill" 2>/dev/null"#
        sandbox.launcher = Self.inTmpfs(sandbox.dataHome, fill)
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("cannot be written") && doctor.stdout.contains("ENOSPC"), "\(doctor)")
        #expect(doctor.stdout.contains("free some space"), "\(doctor)")
        let asked = try await sandbox.run("ask", "hello")
        #expect(asked.status == .exited(1), "\(asked)")
        #expect(asked.stderr.contains("ENOSPC"), "\(asked)")
        #expect(!asked.stderr.contains(".keep-tmp-"), "\(asked)")

        // The pair: on the same small tmpfs with room, doctor finds the data root fine.
        sandbox.launcher = Self.inTmpfs(sandbox.dataHome, #"mkdir -p "$1/keep""#)
        let roomy = try await sandbox.run("doctor")
        #expect(roomy.stdout.contains("a block written there reached the disk"), "\(roomy)")
    }

    @Test(
        "on a read-only disk doctor says the data root cannot be written",
        .enabled(if: mayMount, "needs a mount namespace (unshare -m) to mount a small tmpfs"))
    func aReadOnlyDisk() async throws {
        var sandbox = try Sandbox()
        sandbox.launcher = Self.inTmpfs(sandbox.dataHome, #"mkdir -p "$1/keep/store/chats"; mount -o remount,ro "$1""#)
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("cannot be written") && doctor.stdout.contains("EROFS"), "\(doctor)")
    }

    @Test(
        "a namespace directory keep may not write is a doctor problem",
        .enabled(if: unprivileged != nil, "needs setpriv to run keep unprivileged: as root, EACCES never happens"))
    func anUnwritableNamespace() async throws {
        let directory = try TemporaryDirectory(prefix: "keep-e2e-nobody", under: "/tmp")
        #expect(chmod(directory.path, 0o755) == 0)
        var sandbox = try Sandbox(directory: directory)
        _ = try await sandbox.ask("hello")
        if getuid() == 0 { try Self.giveAway(directory.path) }
        sandbox.launcher = try await Self.unprivileged(in: directory)
        let fine = try await sandbox.run("doctor")
        #expect(fine.stdout.contains("each one keep writes is writable"), "the pair: \(fine)")
        #expect(chmod("\(sandbox.root)/store/chats", 0o500) == 0)
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("store/chats cannot be written"), "\(doctor)")
        #expect(doctor.stdout.contains("EACCES"), "\(doctor)")
    }

    /// The launcher that runs keep as the unprivileged user: a copy of the binary in
    /// `directory` (which that user can reach), since the build's own may sit under a
    /// directory only root may enter (a clone made in `mktemp -d`). Empty when the tests
    /// already run unprivileged.
    static func unprivileged(in directory: TemporaryDirectory) async throws -> [String] {
        guard let unprivileged, !unprivileged.isEmpty else { return [] }
        let copy = directory.appending("keep-binary")
        // Copied by a process of its own: a descriptor this process held open for writing
        // could leak into a child another test spawns, and exec would find the file busy.
        let copied = try await ToolRun.run("/usr/bin/install", ["-m", "755", KeepProcess.binary, copy])
        #expect(copied.status == 0, "\(copied.errors)")
        // `sh -c` drops the build's binary path the process appends and runs the copy.
        return unprivileged + ["/bin/sh", "-c", "shift; exec \"$0\" \"$@\"", copy]
    }

    /// Hands everything under `path` to the unprivileged user keep is run as.
    static func giveAway(_ path: String) throws {
        var paths = [path]
        if let walk = FileManager.default.enumerator(atPath: path) {
            for case let name as String in walk { paths.append((path as NSString).appendingPathComponent(name)) }
        }
        for item in paths where lchown(item, 65534, 65534) != 0 {
            throw SandboxFailure("chown \(item): \(String(cString: strerror(errno)))")
        }
    }
}

/// Doctor and the commands on a damaged kept-data database: both say so in plain words.
@Suite(
    "A damaged kept-data database",
    .onTheScriptsKeyring)
struct DamagedKeptDataTests {
    @Test("a truncated kept.sqlite is a doctor problem with advice, is not modified, and no SQL reaches the user")
    func aTruncatedDatabase() async throws {
        let sandbox = try Sandbox(keyring: true)
        let made = try await sandbox.run("engines", "retention", "forever")
        #expect(made.status == .exited(0), "\(made)")
        let path = sandbox.root + "/kept.sqlite"
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(whole.count >= 8192, "a database of several pages: \(whole.count) bytes")
        let truncated = whole.prefix(whole.count / 2 + 100)
        try truncated.write(to: URL(fileURLWithPath: path))
        let before = try Self.files(sandbox.root)

        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("kept data") && doctor.stdout.contains("damaged"), "\(doctor)")
        #expect(doctor.stdout.contains("moving it away"), "\(doctor)")
        let engines = try await sandbox.run("engines")
        for run in [doctor, engines] {
            for sql in ["SELECT", "INSERT", "CREATE TABLE", "PRAGMA"] {
                #expect(!run.stdout.contains(sql) && !run.stderr.contains(sql), "\(sql) shown: \(run)")
            }
        }
        #expect(before.keys.contains("kept.sqlite"))
        #expect(try Self.files(sandbox.root) == before, "the damaged database was modified")
    }

    /// The kept-data files that hold data, and their bytes: the database and its WAL (not
    /// `-shm`, SQLite's index of the WAL, which any reader may rebuild).
    static func files(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: root)
        where name == "kept.sqlite" || name == "kept.sqlite-wal" {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: (root as NSString).appendingPathComponent(name)))
        }
        return files
    }
}
