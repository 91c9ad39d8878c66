import Foundation

/// The package's Swift sources, read from disk for the walls: each file's path (from the
/// package root) and its code with comments taken out, so a wall judges what the code
/// does, not what a comment mentions.
package struct SourceFile: Sendable, CustomStringConvertible {
    /// `Sources/KeepKeptData/Engines/Store/EnginesSQLiteStore.swift`.
    package let path: String
    /// The code, comments removed (string literals kept: SQL lives in them).
    package let code: String

    package init(path: String, text: String) {
        self.path = path
        self.code = Self.withoutComments(text)
    }

    /// The target the file belongs to: `KeepApp`, `KeepSealed` (a test target's name for a
    /// file under `Tests/`).
    package var target: String {
        let parts = path.split(separator: "/")
        return parts.count > 1 ? String(parts[1]) : ""
    }

    /// Whether the file is under `folder` (a path from the package root, ending in `/`).
    package func isUnder(_ folder: String) -> Bool { path.hasPrefix(folder) }

    /// Whether the file is in a `Store/` folder of an owner module (`Sources/KeepKeptData/<Owner>/Store/`).
    package var isStoreCode: Bool { owner != nil && path.contains("/Store/") }

    /// The owner module the file is in, by its folder under `Sources/KeepKeptData/`
    /// (`Engines` → `engines`), or `nil` outside an owner's folder.
    package var owner: String? {
        let prefix = "Sources/KeepKeptData/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count).split(separator: "/")
        return rest.count > 1 ? rest[0].lowercased() : nil
    }

    /// Every match of `pattern` in the code, as its first capture group (the whole match
    /// when the pattern has none, or the group took no part in the match).
    package func matches(_ pattern: String, options: NSRegularExpression.Options = []) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else {
            return ["<bad pattern \(pattern)>"]
        }
        let range = NSRange(code.startIndex..., in: code)
        return regex.matches(in: code, range: range).compactMap { match in
            let group =
                match.numberOfRanges > 1 && match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range
            return Range(group, in: code).map { String(code[$0]) }
        }
    }

    package var description: String { path }

    /// `text` with `//` and `/* */` comments removed; string literals (plain, multi-line
    /// and raw, interpolations included) are kept as they are, so a `//` inside one is
    /// not a comment.
    package static func withoutComments(_ text: String) -> String {
        var lexer = CommentStripper(Array(text))
        lexer.code(untilCloseParen: false)
        return String(lexer.out)
    }
}

/// A small Swift lexer that copies code and string literals and drops comments.
private struct CommentStripper {
    let characters: [Character]
    var index = 0
    var out: [Character] = []

    init(_ characters: [Character]) {
        self.characters = characters
        out.reserveCapacity(characters.count)
    }

    func startsWith(_ token: String) -> Bool {
        var offset = index
        for character in token {
            guard offset < characters.count, characters[offset] == character else { return false }
            offset += 1
        }
        return true
    }

    mutating func copy(_ count: Int = 1) {
        let end = min(index + count, characters.count)
        out.append(contentsOf: characters[index..<end])
        index = end
    }

    /// Code up to the end, or (inside an interpolation) up to its closing parenthesis.
    mutating func code(untilCloseParen: Bool) {
        var depth = 0
        while index < characters.count {
            if startsWith("//") {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if startsWith("/*") {
                index += 2
                while index < characters.count, !startsWith("*/") { index += 1 }
                index = min(index + 2, characters.count)
            } else if startsWith("#\"") || startsWith("\"") {
                literal()
            } else if untilCloseParen, characters[index] == ")", depth == 0 {
                copy()
                return
            } else {
                if characters[index] == "(" { depth += 1 }
                if characters[index] == ")" { depth -= 1 }
                copy()
            }
        }
    }

    /// A string literal, raw (`#"…"#`), multi-line (`"""…"""`) or plain, copied whole.
    mutating func literal() {
        var hashes = 0
        while index + hashes < characters.count, characters[index + hashes] == "#" { hashes += 1 }
        let pound = String(repeating: "#", count: hashes)
        let quotes = startsWith(pound + "\"\"\"") ? "\"\"\"" : "\""
        copy(hashes + quotes.count)
        let closer = quotes + pound
        let interpolation = "\\" + pound + "("
        while index < characters.count, !startsWith(closer) {
            if startsWith(interpolation) {
                copy(interpolation.count)
                code(untilCloseParen: true)
            } else if hashes == 0, characters[index] == "\\" {
                copy(2)
            } else {
                copy()
            }
        }
        copy(closer.count)
    }
}

/// The package's source tree, found from this file's own path.
package enum SourceTree {
    /// The package root: two folders up from `Sources/KeepTestSupport/`.
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `.swift` file under `Sources/`, read once per test run (the tree does not
    /// change while the tests run).
    package static func sources() throws -> [SourceFile] {
        try sourcesTree.get()
    }

    /// Every `.swift` file under `Tests/`, read once per test run.
    package static func tests() throws -> [SourceFile] {
        try testsTree.get()
    }

    private static let sourcesTree = Result { try read("Sources") }
    private static let testsTree = Result { try read("Tests") }

    private static func read(_ folder: String) throws -> [SourceFile] {
        let top = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: top, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: top.path])
        }
        var files: [SourceFile] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let path = String(url.path.dropFirst(root.path.count + 1))
            files.append(SourceFile(path: path, text: try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// `Package.swift`, as text.
    package static func manifest() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    }
}
