import Testing

@testable import KeepTerminal

/// The streaming Markdown renderer, on a table of answers: what the terminal is sent, for
/// the answer whole and for the same answer split into pieces anywhere.
@Suite("Answers rendered for a terminal as they stream")
struct MarkdownRendererTests {
    static let esc = "\u{1B}"
    static let reset = "\u{1B}[0m"
    static let bold = "\u{1B}[1m"
    static let italic = "\u{1B}[3m"
    static let code = "\u{1B}[36m"
    static let dim = "\u{1B}[2m"

    /// `answer` rendered at `width`, fed in pieces of `size` characters (the whole at once when 0).
    static func render(_ answer: String, width: Int = 80, size: Int = 0) -> String {
        var renderer = MarkdownRenderer(width: width)
        var out = ""
        if size == 0 {
            out += renderer.feed(answer)
        } else {
            var rest = Substring(answer)
            while !rest.isEmpty {
                out += renderer.feed(String(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
        }
        return out + renderer.finish()
    }

    static let cases: [(name: String, answer: String, shown: String)] = [
        ("plain text", "Hello there.\nSecond line.\n", "Hello there.\nSecond line.\n"),
        ("bold", "a **bold** word\n", "a \(reset)\(bold)bold\(reset) word\n"),
        (
            "italic with stars and underscores", "*one* _two_\n",
            "\(reset)\(italic)one\(reset) \(reset)\(italic)two\(reset)\n"
        ),
        ("bold with underscores", "__strong__\n", "\(reset)\(bold)strong\(reset)\n"),
        ("inline code", "run `ls -l` now\n", "run \(reset)\(code)ls -l\(reset) now\n"),
        ("markers inside words stay", "snake_case_name and 2*3 and 2 * 3\n", "snake_case_name and 2*3 and 2 * 3\n"),
        ("a backslash keeps a marker literal", "\\*not italic\\*\n", "*not italic*\n"),
        ("heading 1", "# Title\n", "\(esc)[1;4mTitle\(reset)\n"),
        ("heading 3", "### Part\n", "\(esc)[1mPart\(reset)\n"),
        ("a # without a space is text", "#hashtag\n", "#hashtag\n"),
        ("bullets", "- one\n* two\n+ three\n", "• one\n• two\n• three\n"),
        ("numbered", "1. one\n12) twelve\n", "1. one\n12) twelve\n"),
        ("a number without a list marker is text", "2024 was a year\n", "2024 was a year\n"),
        ("nested bullet keeps its indent", "  - inner\n", "  • inner\n"),
        ("quote", "> quoted\n", "\(dim)│\(reset) quoted\n"),
        (
            "fenced code is set apart and never interpreted",
            "```swift\nlet a = **b** * c\n  # not a heading\n```\nafter\n",
            "\(dim)```swift\(reset)\n\(code)let a = **b** * c\(reset)\n\(code)  # not a heading\(reset)\n"
                + "\(dim)```\(reset)\nafter\n"
        ),
        (
            "a tilde fence, closed only by its own kind",
            "~~~\n```\n~~~\n", "\(dim)~~~\(reset)\n\(code)```\(reset)\n\(dim)~~~\(reset)\n"
        ),
        ("an unclosed fence shows its code", "```\ncode", "\(dim)```\(reset)\n\(code)code\(reset)"),
        ("an unclosed marker ends with its line", "**open\nnext\n", "\(reset)\(bold)open\(reset)\nnext\n"),
        ("no trailing newline", "last words", "last words"),
        (
            "a rule of ***, --- or ___ is a dim line across the width",
            "above\n***\n- - -\n___\nbelow\n",
            "above\n" + String(repeating: "\(dim)\(String(repeating: "─", count: 80))\(reset)\n", count: 3) + "below\n"
        ),
        ("a list item still starts with - and a space", "- - x\n", "• - x\n"),
        (
            "a table is laid out in columns, the header bold, aligned as its delimiter row says",
            "| Name | Size |\n|:-----|-----:|\n| a | 1 |\n| **big** | 1000 |\nafter\n",
            "\(bold)Name\(reset) \(dim)│\(reset) \(bold)Size\(reset)\n"
                + "\(dim)\(String(repeating: "─", count: 4))─┼─\(String(repeating: "─", count: 4))\(reset)\n"
                + "a    \(dim)│\(reset)    1\n"
                + "\(reset)\(bold)big\(reset)  \(dim)│\(reset) 1000\n" + "after\n"
        ),
        (
            "a | line without a delimiter row under it is text",
            "| not | a table |\nplain\n", "| not | a table |\nplain\n"
        ),
        (
            "escape codes from the server are neutralised first",
            "**\(esc)[2J** \(esc)]0;t\u{07}\n",
            "\(reset)\(bold)^[[2J\(reset) ^[]0;t^G\n"
        ),
    ]

    @Test("each kind of Markdown shows as it should, whole", arguments: cases)
    func rendersWhole(_ name: String, _ answer: String, _ shown: String) {
        #expect(Self.render(answer) == shown, "\(name)")
    }

    @Test(
        "the same answers split into pieces of any size (a fenced block split across pieces included) show the same",
        arguments: cases, [1, 2, 3, 5, 7])
    func rendersSplit(_ testCase: (name: String, answer: String, shown: String), _ size: Int) {
        #expect(Self.render(testCase.answer, size: size) == testCase.shown, "\(testCase.name) in pieces of \(size)")
    }

    @Test("a fenced block split across stream chunks at its fences and inside its lines stays one code block")
    func fenceSplitAcrossChunks() {
        var renderer = MarkdownRenderer(width: 80)
        var out = ""
        for piece in ["Here:\n`", "``py", "thon\nprint(1)\n``", "`\nDone **ok", "**\n"] { out += renderer.feed(piece) }
        out += renderer.finish()
        #expect(
            out
                == "Here:\n\(Self.dim)```python\(Self.reset)\n\(Self.code)print(1)\(Self.reset)\n"
                + "\(Self.dim)```\(Self.reset)\nDone \(Self.reset)\(Self.bold)ok\(Self.reset)\n")
    }

    @Test("long lines wrap at word boundaries to the width; list items continue under their text")
    func wraps() {
        let shown = Self.render("one two three four five six\n- alpha beta gamma delta\n", width: 20)
        #expect(shown == "one two three four\nfive six\n• alpha beta gamma\n  delta\n")
        for line in shown.split(separator: "\n") { #expect(line.count <= 20) }
    }

    @Test("a word wider than the screen is printed whole, and wide characters count two columns")
    func wideWords() {
        #expect(
            Self.render("a " + String(repeating: "x", count: 25) + " b\n", width: 20) == "a\n"
                + String(repeating: "x", count: 25) + "\nb\n")
        #expect(Self.render("日本語日本語日本語 日本語日本語日本語\n", width: 20) == "日本語日本語日本語\n日本語日本語日本語\n")
    }

    @Test("a word is printed as soon as the space after it arrives, before the line ends")
    func streamsWords() {
        var renderer = MarkdownRenderer(width: 80)
        #expect(renderer.feed("Streaming ") == "Streaming")
        #expect(renderer.feed("wor") == "")
        #expect(renderer.feed("ds ") == " words")
        #expect(renderer.finish() == "")
    }

    @Test("a table too wide for the screen narrows its widest column and wraps its cells within it")
    func wideTable() {
        let answer =
            "| Option | What it does |\n|---|---|\n| -m | " + String(repeating: "chooses the model ", count: 4) + "|\n"
        let shown = Self.render(answer, width: 40)
        let lines = shown.split(separator: "\n").map { MarkdownRenderer.visibleWidth(String($0)) }
        #expect(lines.count > 3, "the long cell wrapped: \(shown.debugDescription)")
        #expect(lines.allSatisfy { $0 <= 40 }, "\(shown.debugDescription)")
        #expect(shown.contains("-m     \(Self.dim)│\(Self.reset) chooses the model"), "\(shown.debugDescription)")
    }

    @Test("resize(to:) wraps the lines after the one being printed at the new width, and changes nothing printed")
    func resize() {
        var renderer = MarkdownRenderer(width: 80)
        let words = "one two three four five six seven eight nine ten eleven twelve thirteen"
        var out = renderer.feed(words + " ")
        renderer.resize(to: 30)
        out += renderer.feed("fourteen\n" + words + "\n")
        out += renderer.finish()
        let lines = out.split(separator: "\n")
        #expect(lines.first == Substring(words + " fourteen"), "the line being printed keeps its width")
        #expect(lines.dropFirst().allSatisfy { $0.count <= 30 } && lines.count > 2, "\(out.debugDescription)")
    }
}
