import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// The man page: generated from the command table by `keep help --man`, kept in the
/// package as docs/keep.1 (which scripts/install installs), current, and rendered by `man`
/// without a warning.
@Suite("The manual")
struct ManualTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let page = root.appendingPathComponent("docs/keep.1").path

    @Test("docs/keep.1 is what keep help --man prints from the command table")
    func pageIsCurrent() async throws {
        let generated = try await Sandbox().run("help", "--man")
        #expect(generated.status == .exited(0) && generated.stderr.isEmpty, "\(generated)")
        #expect(generated.stdout.contains(".SS \"keep chats search\""), "every command has its section")
        let kept = try String(contentsOfFile: Self.page, encoding: .utf8)
        #expect(
            kept == generated.stdout,
            "docs/keep.1 is behind the command table: run .build/debug/keep help --man > docs/keep.1")
    }

    @Test("man renders docs/keep.1 without a warning", .enabled(if: ToolRun.isInstalled("man")))
    func rendersWithoutWarnings() async throws {
        let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MANWIDTH": "80", "MANPAGER": "cat"]
        let shown = try await ToolRun.run("man", ["--warnings", "-l", Self.page], environment: environment)
        #expect(shown.status == 0 && shown.errors.isEmpty, "\(shown.errors)")
        #expect(shown.output.contains("keep chats search"))
        // The check sees a warning when there is one: a request roff does not know.
        let broken = try TemporaryDirectory(prefix: "keep-man")
        let path = broken.appending("broken.1")
        try Data(".TH BROKEN 1\n.SH NAME\nbroken\n.NOSUCHREQUEST\n".utf8).write(to: URL(fileURLWithPath: path))
        let warned = try await ToolRun.run("man", ["--warnings", "-l", path], environment: environment)
        #expect(!warned.errors.isEmpty, "a warning is seen")
    }
}
