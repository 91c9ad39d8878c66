import Foundation
import Testing

/// A store that cannot be reached at start-up: the crash screen, with the real detail,
/// never a prompt that silently saves nothing.
@Suite("Boot failures")
struct BootFailureTests {
    /// Ways to break a sandbox's store, each with the detail its crash screen must show. (A
    /// settings file that is a symbolic link is not one: keep starts on the defaults, see
    /// DiskEdgeTests.)
    enum Breakage: String, CaseIterable, CustomTestStringConvertible {
        case dataRootIsAFile = "the data root is a file"
        case namespaceIsAFile = "the settings namespace is a file"

        var testDescription: String { rawValue }

        func apply(to sandbox: Sandbox) throws {
            switch self {
            case .dataRootIsAFile:
                try Data("not a directory".utf8).write(to: URL(fileURLWithPath: sandbox.root))
            case .namespaceIsAFile:
                try FileManager.default.createDirectory(
                    atPath: "\(sandbox.root)/store", withIntermediateDirectories: true)
                try Data().write(to: URL(fileURLWithPath: "\(sandbox.root)/store/settings"))
            }
        }

        var detail: String {
            switch self {
            case .dataRootIsAFile, .namespaceIsAFile: "Not a directory (ENOTDIR)"
            }
        }
    }

    @Test("a boot failure prints the crash screen with the real detail", arguments: Breakage.allCases)
    func crashScreen(_ breakage: Breakage) async throws {
        let sandbox = try Sandbox()
        try breakage.apply(to: sandbox)
        for command in [["ask", "hello"], ["chat"], ["settings"]] {
            let run = try await sandbox.run(command, input: "hello\n")
            #expect(run.status == .exited(1), "\(command): \(run)")
            #expect(run.stdout.isEmpty, "\(command): no prompt, no answer")
            #expect(run.stderr.hasPrefix("keep: cannot start: storage_unavailable\n"), "\(command): \(run)")
            #expect(run.stderr.contains(breakage.detail), "\(command): \(run)")
            #expect(run.stderr.contains("Check \(sandbox.root)"), "\(command): \(run)")
        }
    }

    @Test("with neither XDG_DATA_HOME nor HOME, keep refuses to guess where to keep data")
    func noDataHome() async throws {
        let process = try KeepProcess(["ask", "hello"], environment: ["PATH": "/usr/bin:/bin"])
        process.closeInput()
        #expect(await process.exit() == .exited(1))
        let errors = await process.errors?.waitForEnd() ?? ""
        #expect(errors.hasPrefix("keep: cannot start: storage_unavailable\n"), "\(errors)")
        #expect(errors.contains("neither XDG_DATA_HOME nor HOME is set"), "\(errors)")
        #expect(errors.contains("Set XDG_DATA_HOME or HOME to an absolute path."))
    }

    @Test("the same store, readable, starts: the pair of the crash screen")
    func aHealthyStoreStarts() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run("ask", "hello")
        #expect(run.status == .exited(0))
        #expect(!run.stderr.contains("cannot start"))
    }
}
