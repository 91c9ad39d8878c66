import Foundation
import KeepConformance
import KeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Words that are true: what keep says when something goes wrong is one line, in plain
/// words, about what actually happened and what to do.
@Suite("Words that are true")
struct TrueWordsTests {
    @Test("a settings file moved aside is said to be, by name, and the copy holds no secret-flagged value")
    func settingsMovedAside() async throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.root + "/store/settings", withIntermediateDirectories: true)
        let broken = #"{"openaiApiKey": "sk-hand-edited-secret", "model": "my-model", "#
        try Data(broken.utf8).write(to: URL(fileURLWithPath: sandbox.file("settings", "settings")))
        // The scan would see the secret: it is in the file as the user left it.
        #expect(try await !RawFileScan.files(under: [sandbox.root], containing: "sk-hand-edited-secret").isEmpty)

        let before = try await sandbox.run("settings")
        #expect(
            before.stderr.contains("the next change of a setting moves the file aside (to settings/settings.corrupt-"),
            "\(before)")
        #expect(!before.stderr.contains("left as it is"), "\(before)")
        let set = try await sandbox.run("settings", "set", "engineId", "echo")
        #expect(set.status == .exited(0), "\(set)")
        let aside = try #require(
            set.stderr.firstMatch(of: /moved aside to settings\/(settings\.corrupt-[0-9tz-]+)/).map { String($0.1) },
            "\(set)")
        #expect(set.stderr.contains("replaced by a new one holding your change"), "\(set)")
        let copy = try await sandbox.run("store", "get", "settings", aside)
        #expect(copy.status == .exited(0) && copy.stdout.contains("my-model"), "the rest is kept: \(copy)")
        #expect(!copy.stdout.contains("sk-hand-edited-secret"), "\(copy)")
        let holding = try await RawFileScan.files(under: [sandbox.root], containing: "sk-hand-edited-secret")
        // The settings file itself was replaced: only a file keep never wrote could hold it.
        #expect(holding.isEmpty, "no file under the data root holds it: \(holding)")
    }

    @Test(
        "on a read-only disk doctor says it is mounted read-only, and does not advise chmod",
        .enabled(if: DiskEdgeTests.mayMount, "needs a mount namespace (unshare -m) to mount a small tmpfs"))
    func readOnlyAdvice() async throws {
        var sandbox = try Sandbox()
        sandbox.launcher = DiskEdgeTests.inTmpfs(
            sandbox.dataHome, #"mkdir -p "$1/keep/store/chats"; mount -o remount,ro "$1""#)
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.stdout.contains("EROFS"), "\(doctor)")
        #expect(doctor.stdout.contains("mounted read-only: remount it read-write"), "\(doctor)")
        #expect(!doctor.stdout.contains("chmod"), "\(doctor)")
    }

    @Test(
        "a question whose draft cannot be written is one line saying it was not asked, with no module prefix",
        .enabled(if: DiskEdgeTests.mayMount, "needs a mount namespace (unshare -m) to mount a small tmpfs"))
    func draftNotKept() async throws {
        var sandbox = try Sandbox()
        let fill = #"mkdir -p "$1/keep/store/chats" "$1/keep/store/drafts"; cat /dev/zero > "$1/fill" 2>/dev/null"#
        sandbox.launcher = DiskEdgeTests.inTmpfs(sandbox.dataHome, fill)
        let asked = try await sandbox.run("ask", "hello")
        #expect(asked.status == .exited(1), "\(asked)")
        // (The full disk also stops the one-time migration's marker: a warning of its own.)
        let lines = asked.stderr.split(separator: "\n").filter { !$0.hasPrefix("keep: warning:") }
        #expect(lines.count == 1, "\(asked)")
        #expect(
            lines.first?.hasPrefix("keep: the question was not asked: it could not be kept as chat ") == true,
            "\(asked)")
        #expect(asked.stderr.contains("ENOSPC") && !asked.stderr.contains("chats:"), "\(asked)")
    }
}
