import Foundation
import KeepConformance
import KeepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The data root is yours: keep keeps nothing where another user of the machine could
/// change it. A data root, `store/` or a namespace another user owns, or one group or
/// others may write, is refused in one line naming the path and the owner or mode; doctor
/// says how to fix it; nothing is lost, and once the root is yours again everything is
/// there.
@Suite("The data root is yours")
struct DataRootOwnershipTests {
    static let nobody: uid_t = 65534

    @Test("a data root an unprivileged user made (setpriv) is refused by every command in one line naming its owner")
    func madeByAnotherUser() async throws {
        // Under /tmp (which anyone may enter), not the test run's own temp directory, so
        // the other user can reach the sandbox to make the root there.
        let sandbox = try Sandbox(directory: try TemporaryDirectory(prefix: "keep-owner", under: "/tmp"))
        #expect(chmod(sandbox.directory.path, 0o711) == 0)
        #expect(chmod(sandbox.dataHome, 0o777) == 0)
        let made = try await ToolRun.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", "mkdir", "-m", "700", sandbox.root])
        try #require(made.status == 0, "setpriv made the root: \(made.errors)")
        #expect(chmod(sandbox.dataHome, 0o700) == 0)
        for arguments in [["ask", "hello"], ["chats"], ["settings", "set", "model", "m"]] {
            let outcome = try await sandbox.run(arguments)
            #expect(outcome.status == .exited(1), "keep \(arguments): \(outcome)")
            let lines = outcome.stderr.split(separator: "\n")
            #expect(
                lines.contains { $0.contains(sandbox.root) && $0.contains("belongs to user 65534") },
                "keep \(arguments): \(outcome)")
        }
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.status == .exited(1), "\(doctor)")
        #expect(doctor.stdout.contains("belongs to user 65534") && doctor.stdout.contains("XDG_DATA_HOME"), "\(doctor)")
        var status = stat()
        #expect(lstat(sandbox.root + "/store", &status) != 0, "nothing was made in the other user's root")
    }

    @Test(
        "a data root, store or namespace made another user's or writable by others is refused; made yours again, all is there"
    )
    func givenAway() async throws {
        let sandbox = try Sandbox()
        let id = try #require(try await sandbox.run("ask", "hello").chatId)
        for place in [sandbox.root, sandbox.root + "/store", sandbox.root + "/store/chats"] {
            try #require(chown(place, Self.nobody, gid_t(Self.nobody)) == 0, "the tests run as root")
            let refused = try await sandbox.run("chats")
            #expect(refused.status == .exited(1) && refused.stderr.contains(place), "\(place): \(refused)")
            #expect(refused.stderr.contains("belongs to user 65534"), "\(refused)")
            #expect(chown(place, geteuid(), getegid()) == 0)
            #expect(chmod(place, 0o770) == 0)
            let open = try await sandbox.run("ask", "again")
            #expect(open.status == .exited(1) && open.stderr.contains("group or others may change it"), "\(open)")
            let doctor = try await sandbox.run("doctor")
            #expect(doctor.stdout.contains("chmod -R go-w"), "\(doctor)")
            #expect(chmod(place, 0o700) == 0)
            // The pair: the root as keep made it works, and the chat is still there.
            let listed = try await sandbox.run("chats")
            #expect(listed.status == .exited(0) && listed.stdout.contains(id), "\(place): \(listed)")
        }
    }

    @Test(
        "a data root under a directory anyone may write is refused, naming it, with doctor's fix; made sticky, all is there"
    )
    func underAnOpenDirectory() async throws {
        let sandbox = try Sandbox()
        let id = try #require(try await sandbox.run("ask", "hello").chatId)
        #expect(chmod(sandbox.dataHome, 0o777) == 0)
        let refused = try await sandbox.run("chats")
        #expect(refused.status == .exited(1), "\(refused)")
        #expect(
            refused.stderr.contains(sandbox.dataHome) && refused.stderr.contains("could move the data root away"),
            "\(refused)")
        let doctor = try await sandbox.run("doctor")
        #expect(doctor.status == .exited(1) && doctor.stdout.contains("chmod go-w"), "\(doctor)")
        // The pair: sticky, as /tmp is, no one else can move the root; and nothing was lost.
        #expect(chmod(sandbox.dataHome, 0o1777) == 0)
        let listed = try await sandbox.run("chats")
        #expect(listed.status == .exited(0) && listed.stdout.contains(id), "\(listed)")
    }

    @Test("a chat file another user owns is that chat's problem: refused when read, the others listed")
    func chatGivenAway() async throws {
        let sandbox = try Sandbox()
        let first = try #require(try await sandbox.run("ask", "one").chatId)
        let second = try #require(try await sandbox.run("ask", "two").chatId)
        try #require(chown(sandbox.file("chats", first), Self.nobody, gid_t(Self.nobody)) == 0)
        // The listing goes on (from the index, or naming that chat as unreadable)...
        let listed = try await sandbox.run("chats")
        #expect(listed.status == .exited(0) && listed.stdout.contains(second), "\(listed)")
        // ...and the chat itself is refused, by name, whenever it is read.
        let shown = try await sandbox.run("chats", "show", first)
        #expect(shown.status == .exited(1) && shown.stderr.contains("belongs to user 65534"), "\(shown)")
    }
}
