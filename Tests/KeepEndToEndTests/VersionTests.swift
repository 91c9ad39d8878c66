import Foundation
import Testing

/// One version: what `keep --version` prints (from `KeepVersion`, the one place it is
/// written in code) is the version Package.swift's header names, the changelog's newest
/// release, and every version the guide shows.
@Suite("One version")
struct VersionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every `MAJOR.MINOR.PATCH` in `text` that `pattern` captures.
    static func versions(_ text: String, _ pattern: Regex<(Substring, Substring)>) -> [String] {
        text.matches(of: pattern).map { String($0.output.1) }
    }

    @Test("keep --version, Package.swift's header, the changelog's newest release and the guide name one version")
    func oneVersion() async throws {
        let printed = try await Sandbox().run("--version").stdout
        let version = try #require(printed.wholeMatch(of: /keep (\d+\.\d+\.\d+)\n/)).output.1
        let manifest = Self.versions(try Self.text("Package.swift"), #//// Version (\d+\.\d+\.\d+) /#)
        #expect(manifest == [String(version)], "Package.swift's header: \(manifest)")

        let changelog = try Self.text("CHANGELOG.md")
        let releases = Self.versions(changelog, /\n## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}\n/)
        #expect(releases.first == String(version), "the newest release in CHANGELOG.md: \(releases)")
        #expect(releases.count >= 2 && changelog.contains("\n## [Unreleased]\n"))

        let guide = try Self.text("docs/keep-guide.md")
        let shown =
            Self.versions(guide, /`keep (\d+\.\d+\.\d+)`/) + Self.versions(guide, /"version" : "(\d+\.\d+\.\d+)"/)
        #expect(shown.count >= 2, "the guide's versions are found")
        #expect(shown.allSatisfy { $0 == version }, "the guide shows \(shown)")
    }
}
