import Foundation
import Testing

/// The wall that keeps the documentation's code compiled: every ` ```swift ` block of the
/// README, of `docs/*.md` and of the DocC articles (`Sources/*/*.docc/**/*.md`) appears
/// in this target's other sources, which the suite builds (and, where it can, runs).
///
/// "Appears" means verbatim, line for line, with leading and trailing blank lines of the
/// block dropped and every line indented alike (a block may sit inside a function); a
/// block's `import` lines are found among the imports of the file that holds the rest,
/// since Swift takes imports only at the top of a file.
@Suite("The documentation's Swift code is code that builds")
struct DocumentedCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every ` ```swift ` block of `markdown`, as its lines, blank lines at either end dropped.
    static func swiftBlocks(_ markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed.hasPrefix("```") {
                    while block.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { block.removeFirst() }
                    while block.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { block.removeLast() }
                    blocks.append(block)
                    current = nil
                } else {
                    block.append(line)
                    current = block
                }
            } else if trimmed == "```swift" {
                current = []
            }
        }
        return blocks
    }

    /// Whether `block` appears in `source` (both as lines), as the suite's comment says.
    static func appears(_ block: [String], in source: [String]) -> Bool {
        let trailing = { (line: String) in String(line.reversed().drop { $0 == " " }.reversed()) }
        let imports = block.filter { $0.hasPrefix("import ") }
        guard imports.allSatisfy(source.map(trailing).contains) else { return false }
        let code = block.filter { !$0.hasPrefix("import ") }.map(trailing)
        let body = Array(code.drop { $0.isEmpty })
        guard let first = body.first else { return true }
        let lines = source.map(trailing)
        for start in lines.indices where lines[start].hasSuffix(first) && start + body.count <= lines.count {
            let indent = String(lines[start].dropLast(first.count))
            guard indent.allSatisfy({ $0 == " " }) else { continue }
            let matches = zip(body, lines[start...]).allSatisfy { expected, actual in
                expected.isEmpty ? actual.isEmpty : actual == indent + expected
            }
            if matches { return true }
        }
        return false
    }

    /// The Markdown files whose code is checked, as paths from the package root.
    static func documents() -> [String] {
        var paths = ["README.md"]
        let fileManager = FileManager.default
        for folder in ["docs", "Sources"] {
            guard let walk = fileManager.enumerator(atPath: root.appendingPathComponent(folder).path) else { continue }
            for case let relative as String in walk where relative.hasSuffix(".md") {
                if (folder == "docs" && !relative.contains("/")) || (folder == "Sources" && relative.contains(".docc/"))
                {
                    paths.append(folder + "/" + relative)
                }
            }
        }
        return paths.sorted()
    }

    /// This target's sources but this file, each as its lines.
    static func snippetSources() throws -> [(path: String, lines: [String])] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".swift") && $0 != URL(fileURLWithPath: #filePath).lastPathComponent
        }
        return try names.sorted().map { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return (name, text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        }
    }

    @Test("the wall finds a block indented inside a function with its imports at the top, and misses a changed one")
    func wallFindsBlocks() {
        let source = [
            "import KeepPorts", "", "enum Example {", "    static func run() async throws {",
            "        let storage = MemoryStorage()", "", "        try await storage.write(key, \"v\")  // a note",
            "    }", "}",
        ]
        let markdown = """
            Text.

            ```swift
            import KeepPorts

            let storage = MemoryStorage()

            try await storage.write(key, "v")  // a note
            ```
            """
        let blocks = Self.swiftBlocks(markdown)
        #expect(blocks.count == 1)
        #expect(Self.appears(blocks[0], in: source))
        // The pairs: one character changed, an import the file lacks, a blank line left out.
        #expect(!Self.appears(blocks[0].map { $0.replacingOccurrences(of: "\"v\"", with: "\"w\"") }, in: source))
        #expect(!Self.appears(["import KeepCore"] + blocks[0].dropFirst(), in: source))
        #expect(
            !Self.appears(
                ["let storage = MemoryStorage()", "try await storage.write(key, \"v\")  // a note"], in: source))
    }

    @Test("every Swift block of the README, docs and the DocC articles is compiled, verbatim, in KeepDocsTests")
    func everyBlockIsCompiled() throws {
        let sources = try Self.snippetSources()
        #expect(sources.count >= 5, "the wall reads the snippet sources: \(sources.map(\.path))")
        let documents = Self.documents()
        #expect(documents.contains("docs/keep-guide.md") && documents.count >= 10, "the wall reads \(documents)")
        var blocks = 0
        for document in documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for block in Self.swiftBlocks(text) {
                blocks += 1
                #expect(
                    sources.contains { Self.appears(block, in: $0.lines) },
                    "\(document): a swift block is in no source of Tests/KeepDocsTests:\n\(block.joined(separator: "\n"))"
                )
            }
        }
        #expect(blocks >= 8, "the wall sees the documentation's blocks")
    }
}
