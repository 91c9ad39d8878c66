import KeepCLI
import Testing

@Suite("Help filled to the width of a terminal")
struct TextFillTests {
    @Test("a paragraph is refilled to the width, its words in order and never split")
    func refills() {
        let text = "one two three four\nfive six seven eight nine ten"
        let filled = TextFill.filled(text, width: 14)
        #expect(filled == "one two three\nfour five six\nseven eight\nnine ten")
        #expect(filled.split(whereSeparator: \.isWhitespace) == text.split(whereSeparator: \.isWhitespace))
    }

    @Test("a line that starts with a space is kept as it is, and a blank line stays blank")
    func preformatted() {
        let text = "Keys:\n  /new   start a new chat\n  /quit  quit\n\nafter the table"
        #expect(
            TextFill.filled(text, width: 10) == "Keys:\n  /new   start a new chat\n  /quit  quit\n\nafter the\ntable")
    }

    @Test("a word longer than the width stands alone on its line")
    func longWord() {
        #expect(
            TextFill.wrapped("a https://example.com/a/long/path b", width: 10) == [
                "a", "https://example.com/a/long/path", "b",
            ])
    }

    @Test("words that hold spaces are kept whole")
    func words() {
        let lines = TextFill.wrapped(words: ["[--chat ID]", "[-c]", "[--json]"], width: 17)
        #expect(lines == ["[--chat ID] [-c]", "[--json]"])
    }

    @Test("two columns: the right one filled under its column, or under the row when the left is wide")
    func columns() {
        let rows = TextFill.columns([("ls", "list the ids in a namespace"), ("rm", "")], width: 20)
        #expect(rows == ["  ls  list the ids", "      in a namespace", "  rm"])
        let wide = TextFill.columns([("a-very-long-name-indeed", "what it does")], width: 40)
        #expect(wide == ["  a-very-long-name-indeed", "        what it does"])
        for row in rows + wide { #expect(row.count <= 40) }
    }
}
