import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// scripts/install and scripts/uninstall, run into a prefix of the test's own. They install
/// the keep this test run built (KEEP_BINARY) rather than building a release keep again,
/// which is the one step scripts/install takes besides, as scripts/keep does.
@Suite("Installing keep")
struct InstallTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static let installed = [
        "bin/keep", "share/man/man1/keep.1", "share/bash-completion/completions/keep",
        "share/zsh/site-functions/_keep", "share/fish/vendor_completions.d/keep.fish",
    ]

    /// Every path under `directory`, relative to it, sorted.
    static func tree(_ directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []).sorted()
    }

    static func script(_ name: String, _ prefix: String, _ sandbox: Sandbox) async throws -> ToolRun {
        var environment = sandbox.environment
        environment["KEEP_BINARY"] = KeepProcess.binary
        return try await ToolRun.run("bash", ["\(root)/scripts/\(name)", prefix], environment: environment)
    }

    @Test(
        "scripts/install puts keep, its man page and its completions under a prefix; scripts/uninstall takes exactly those away"
    )
    func installAndUninstall() async throws {
        let sandbox = try Sandbox()
        let prefix = sandbox.directory.appending("prefix")
        // What was there before stays: a man page of another program, in a directory install also uses.
        try FileManager.default.createDirectory(atPath: "\(prefix)/share/man/man1", withIntermediateDirectories: true)
        try Data("other".utf8).write(to: URL(fileURLWithPath: "\(prefix)/share/man/man1/other.1"))
        let before = Self.tree(prefix)

        let install = try await Self.script("install", prefix, sandbox)
        #expect(install.status == 0 && install.errors.isEmpty, "\(install.output)\(install.errors)")
        #expect(install.output.contains("Installed keep "), "\(install.output)")
        for file in Self.installed {
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "\(file)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/bin/keep"))
        let version = try await ToolRun.run("\(prefix)/bin/keep", ["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("keep "))
        let page = try String(contentsOfFile: "\(prefix)/share/man/man1/keep.1", encoding: .utf8)
        #expect(page == (try String(contentsOfFile: "\(Self.root)/docs/keep.1", encoding: .utf8)))
        let bash = try String(contentsOfFile: "\(prefix)/share/bash-completion/completions/keep", encoding: .utf8)
        #expect(bash == (try await sandbox.run("completions", "bash").stdout))
        #expect(!FileManager.default.fileExists(atPath: sandbox.root), "installing touches no data")

        // Installing again over an install is fine, and leaves one install to undo.
        #expect(try await Self.script("install", prefix, sandbox).status == 0)
        let uninstall = try await Self.script("uninstall", prefix, sandbox)
        #expect(uninstall.status == 0 && uninstall.errors.isEmpty, "\(uninstall.output)\(uninstall.errors)")
        #expect(Self.tree(prefix) == before, "exactly what install put there is gone")
    }

    @Test("scripts/uninstall refuses a prefix scripts/install never wrote to, and touches nothing there")
    func uninstallRefusesAStrangePrefix() async throws {
        let sandbox = try Sandbox()
        let prefix = sandbox.directory.appending("elsewhere")
        try FileManager.default.createDirectory(atPath: "\(prefix)/bin", withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: "\(prefix)/bin/keep"))
        let uninstall = try await Self.script("uninstall", prefix, sandbox)
        #expect(
            uninstall.status == 1 && uninstall.errors.contains("nothing scripts/install put"), "\(uninstall.errors)")
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/bin/keep"))
    }

    @Test("a build shows its steps on one line that updates, and nothing at all when keep is up to date")
    func buildProgress() async throws {
        func progress(_ log: String) async throws -> ToolRun {
            try await ToolRun.run(
                "bash", ["-c", ". '\(Self.root)/scripts/lib/build.sh'; build_progress"],
                environment: ["PATH": "/usr/bin:/bin", "TERM": "dumb"], input: Data(log.utf8))
        }
        let building = try await progress(
            """
            Building for production...
            [1/40] Compiling KeepPorts Namespace.swift
            [39/40] Linking keep
            Build of product 'keep' complete! (301.20s)

            """)
        #expect(building.status == 0)
        #expect(building.errors.hasPrefix("keep: building keep (release"), "\(building.errors)")
        #expect(
            building.errors.contains(
                "\r\u{1B}[K[1/40] Compiling KeepPorts Namespace.swift\r\u{1B}[K[39/40] Linking keep"))
        #expect(building.errors.hasSuffix("\r\u{1B}[K"), "the step line is cleared at the end")
        let upToDate = try await progress(
            """
            Building for production...
            [0/3] Write swift-version--58304C5D6DBC2206.txt
            Build of product 'keep' complete! (0.52s)

            """)
        #expect(upToDate.status == 1 && upToDate.errors.isEmpty, "\(upToDate.errors)")
    }
}
