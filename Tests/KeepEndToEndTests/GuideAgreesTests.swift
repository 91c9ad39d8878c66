import Foundation
import Testing

/// What the guide says keep does, and what keep does, agree: each place where a new user
/// found them apart, pinned.
@Suite("The guide and keep agree")
struct GuideAgreesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("keep settings set chatHistory false removes the history file at once; true, or unset, leaves it")
    func historyOffRemovesTheFile() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.run("settings", "set", "model", "m").status == .exited(0), "the data root is made")
        let history = "\(sandbox.root)/history"
        try Data(#"["a line typed before"]"#.utf8).write(to: URL(fileURLWithPath: history))
        for words in [["set", "chatHistory", "true"], ["unset", "chatHistory"]] {
            #expect(try await sandbox.run(["settings"] + words).status == .exited(0))
            #expect(FileManager.default.fileExists(atPath: history), "\(words) keeps the history")
        }
        let off = try await sandbox.run("settings", "set", "chatHistory", "false")
        #expect(off.status == .exited(0) && off.stderr.isEmpty, "\(off)")
        #expect(!FileManager.default.fileExists(atPath: history), "the lines typed are gone at once")
        #expect(try await sandbox.run("settings", "set", "chatHistory", "false").status == .exited(0), "no file: fine")
    }

    @Test("keep settings shows each section once, and every setting with its help, as the guide says")
    func settingsShowsHelp() async throws {
        let sandbox = try Sandbox()
        let json = try await sandbox.run("settings", "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(report["settings"] as? [[String: Any]])
        let text = try await sandbox.run("settings").stdout
        let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for row in rows {
            let help = (row["help"] as? String ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(!help.isEmpty && collapsed.contains(help), "\(row["key"] ?? "?"): \(help)")
        }
        let sections = Set(rows.compactMap { $0["section"] as? String })
        #expect(sections.count >= 3)
        for section in sections {
            #expect(text.split(separator: "\n").filter { $0 == section }.count == 1, "\(section) once: \(text)")
        }
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/keep-guide.md"), encoding: .utf8)
        #expect(guide.contains("(`keep settings` shows them with their help)"))
    }

    @Test("a settings file with a field keep does not use is reported so, never as fine")
    func settingsFileStatus() async throws {
        let sandbox = try Sandbox()
        #expect(try await sandbox.run("settings", "set", "model", "m").status == .exited(0))
        try Data(#"{ "model": "m", "temperature": "hot" }"#.utf8)
            .write(to: URL(fileURLWithPath: sandbox.file("settings", "settings")))
        let json = try await sandbox.run("settings", "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let file = try #require(report["file"] as? [String: Any])
        #expect(file["healthy"] as? Bool == false)
        #expect(file["status"] as? String == "1 field of the settings file is not used: its default applies", "\(file)")
        let text = try await sandbox.run("settings")
        #expect(!text.stderr.contains("is fine"), "\(text.stderr)")
        #expect(text.stderr.contains("keep: warning: not used: temperature:"), "\(text.stderr)")
    }

    /// The options a synopsis or a usage line offers: each word in it that is `-x` or `--name`.
    static func options(_ synopsis: String) -> Set<String> {
        Set(
            synopsis.split(whereSeparator: { " []|`".contains($0) }).filter { word in
                word.hasPrefix("-") && word.dropFirst().drop { $0 == "-" }.first?.isLetter == true
            }.map(String.init))
    }

    @Test("the command reference's synopsis of each command offers the options its usage offers")
    func synopsesMatchUsage() async throws {
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/keep-guide.md"), encoding: .utf8)
        let reference = try #require(guide.components(separatedBy: "\n## Command reference\n").last)
        let sandbox = try Sandbox()
        var compared = 0
        for row in reference.split(separator: "\n") where row.hasPrefix("| `keep") {
            // The first cell: up to the first `|` that is not escaped (`\|` stands in a synopsis).
            let cell = String(row.dropFirst(2)).replacingOccurrences(of: "\\|", with: "¦").prefix { $0 != "|" }
                .replacingOccurrences(of: "¦", with: "|")
            // Each synopsis in the first cell: `keep chats show ID [--json]`.
            for synopsis in cell.matches(of: /`(keep [^`]*)`/).map({ String($0.output.1) }) {
                let words = synopsis.split(separator: " ").dropFirst().prefix { $0.first?.isLowercase == true }
                guard !words.isEmpty, !words.contains(where: { $0.contains("|") }) else { continue }
                let help = try await sandbox.run(words.map(String.init) + ["--help"])
                guard help.status == .exited(0) else { continue }
                // The command's own usage: its first line and those that go on under it.
                let block = help.stdout.components(separatedBy: "\n\n")[0].split(separator: "\n")
                let usage = ([block[0]] + block.dropFirst().prefix { !$0.hasPrefix("       keep ") })
                    .joined(separator: " ")
                #expect(Self.options(synopsis) == Self.options(usage), "\(synopsis) in the guide; keep: \(usage)")
                compared += 1
            }
        }
        #expect(compared >= 20, "the test reads the reference's synopses")
        #expect(Self.options("keep ask [--chat ID | -c] [-m NAME] TEXT") == ["--chat", "-c", "-m"])
    }
}
