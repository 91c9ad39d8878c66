import Foundation
import Testing

/// Help people read: every command's help, found by walking the command table through
/// `keep` itself, fits a terminal's 80 columns and shows examples; the topics as well.
@Suite("Help people read")
struct HelpTests {
    /// The names of a help text's "Commands:" (or other `heading`) section, in order.
    static func listed(_ help: String, under heading: String = "Commands:") -> [String] {
        guard let section = help.components(separatedBy: "\n\(heading)\n").dropFirst().first else { return [] }
        return section.components(separatedBy: "\n\n")[0].split(separator: "\n").compactMap { line in
            // A name starts a row two spaces in; a longer indent continues the row before.
            line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
        }
    }

    /// Every command and subcommand, as the words that run it, walked from `keep --help`.
    static func walk(_ sandbox: Sandbox) async throws -> [(words: [String], help: String)] {
        var found: [(words: [String], help: String)] = []
        var queue = [[String]()]
        while !queue.isEmpty {
            let words = queue.removeFirst()
            let help = try await sandbox.run(words + ["--help"])
            #expect(help.status == .exited(0) && help.stderr.isEmpty, "\(words): \(help)")
            found.append((words, help.stdout))
            queue += listed(help.stdout).map { words + [$0] }
        }
        return found
    }

    @Test("the walk finds every command and subcommand a help lists, and would see one without examples")
    func walkSeesTheTable() async throws {
        let found = try await Self.walk(try Sandbox())
        #expect(found.count >= 30, "the walk reaches the subcommands: \(found.map(\.words))")
        for words in [["chats", "search"], ["key", "status"], ["store", "clear"], ["engines", "retention"]] {
            #expect(found.contains { $0.words == words }, "\(words)")
        }
        #expect(Self.listed("x\n\nCommands:\n  show  one\n        more\n  rm    two\n\nafter") == ["show", "rm"])
        #expect(!"usage: keep x\n\nNo examples here\n".contains("\nExamples:\n  "))
    }

    @Test("every command's help fits in 80 columns and has at least one example")
    func everyHelpFitsAndShowsExamples() async throws {
        for (words, help) in try await Self.walk(try Sandbox()) {
            let wide = help.split(separator: "\n").filter { $0.count > 80 }
            #expect(wide.isEmpty, "keep \(words.joined(separator: " ")) --help: \(wide)")
            let examples = help.components(separatedBy: "\nExamples:\n").dropFirst().first ?? ""
            #expect(examples.contains("\n    keep ") || examples.contains("    source <(keep"), "\(words): \(help)")
        }
    }

    @Test("keep help TOPIC explains each topic keep --help lists, in 80 columns; no topic is named as a command")
    func topics() async throws {
        let sandbox = try Sandbox()
        let overview = try await sandbox.run("--help").stdout
        let topics = Self.listed(overview, under: "Help topics (keep help TOPIC):")
        #expect(Set(topics).isSuperset(of: ["files", "environment"]), "\(overview)")
        #expect(Set(topics).isDisjoint(with: Self.listed(overview)))
        for topic in topics {
            let help = try await sandbox.run("help", topic)
            #expect(help.status == .exited(0) && help.stdout.count > 100, "\(topic): \(help)")
            #expect(help.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(topic): \(help)")
        }
        let unknown = try await sandbox.run("help", "nosuch")
        #expect(unknown.status == .exited(2))
        #expect(unknown.stderr.hasPrefix("keep: unknown command or topic \"nosuch\"\n"), "\(unknown)")
    }

    @Test("keep help COMMAND SUBCOMMAND prints what --help prints")
    func helpIsHelp() async throws {
        let sandbox = try Sandbox()
        #expect(
            try await sandbox.run("help", "chats", "search").stdout == sandbox.run("chats", "search", "--help").stdout)
        #expect(try await sandbox.run("help").stdout == sandbox.run("--help").stdout)
    }
}
