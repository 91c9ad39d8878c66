import Foundation
import Testing

/// The wall that keeps usage lines generated: the `keep` command's sources are read from
/// disk, and nothing in them may type a usage line or an option's help line by hand.
@Suite("No usage typed by hand")
struct HandTypedUsageTests {
    /// Hand-typed usage: a `usage:` argument with a literal, or a help line that starts
    /// with an option's names (`  -c, --continue   ask in …`).
    static let handTyped = [
        #"usage:\s*"keep "#,
        #"(?m)^\s*(-[a-zA-Z], )?--[a-z][a-z-]*( [A-Z][A-Z|a-z]*)?\s{2,}\S"#,
    ]

    /// Whether `code` types a usage line or an option help line by hand.
    static func typesUsage(_ code: String) -> [String] {
        handTyped.compactMap { pattern in
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return "<bad pattern \(pattern)>" }
            let range = NSRange(code.startIndex..., in: code)
            return regex.firstMatch(in: code, range: range).flatMap { Range($0.range, in: code) }
                .map { String(code[$0]) }
        }
    }

    /// The code of each Swift file of the `keep` command, `//` comment lines left out.
    static func keepSources() throws -> [(path: String, code: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/keep")
        guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [(String, String)] = []
        for case let relative as String in walk where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder.appendingPathComponent(relative).path, encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            files.append(("Sources/keep/" + relative, code))
        }
        return files
    }

    @Test("the wall sees a usage line or an option help line typed by hand, and passes generated ones")
    func wallSeesHandTypedUsage() {
        #expect(!Self.typesUsage(#"Command("ask", summary: "Ask", usage: "keep ask [TEXT...]")"#).isEmpty)
        #expect(!Self.typesUsage("help: \"\"\"\n    -c, --continue   ask in the last chat\n\"\"\"").isEmpty)
        #expect(!Self.typesUsage("  --since DAYS   only answers from the last DAYS days").isEmpty)
        // The pair: a declaration with its help, and prose that mentions an option, pass.
        #expect(Self.typesUsage(#"Option("--since", value: "DAYS", help: "only the last DAYS days")"#).isEmpty)
        #expect(Self.typesUsage("Without --chat or -c the question starts a new chat.").isEmpty)
    }

    @Test("no usage line or option help is typed by hand in the keep command: each comes from its option list")
    func noHandTypedUsage() throws {
        let files = try Self.keepSources()
        #expect(files.count >= 10, "the wall reads the command's sources, not nothing")
        #expect(files.contains { $0.path.hasSuffix("Commands/AskCommand.swift") })
        for file in files {
            #expect(Self.typesUsage(file.code).isEmpty, "\(file.path): \(Self.typesUsage(file.code))")
        }
    }

    @Test("every option the keep command declares says what it does")
    func everyOptionHasHelp() throws {
        let declaration = try NSRegularExpression(pattern: #"ArgumentParser\.Option\(([^()]|\([^()]*\))*\)"#)
        var seen = 0
        for file in try Self.keepSources() {
            let range = NSRange(file.code.startIndex..., in: file.code)
            for match in declaration.matches(in: file.code, range: range) {
                guard let found = Range(match.range, in: file.code) else { continue }
                seen += 1
                #expect(file.code[found].contains("help: \""), "\(file.path): \(file.code[found])")
            }
        }
        #expect(seen >= 8, "the wall sees the declarations")
    }
}
