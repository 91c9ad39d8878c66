import Testing

@testable import KeepTerminal

/// keep's own messages and help tables wrapped to the terminal's width.
@Suite("keep's own words wrapped to the width")
struct TextWrapTests {
    @Test("a long line breaks at spaces within the width, each line of the text on its own")
    func wrapsAtSpaces() {
        let text = "one two three four five six seven eight nine ten\nshort"
        let wrapped = TextWrap.wrapped(text, width: 20)
        #expect(wrapped == "one two three four\nfive six seven eight\nnine ten\nshort")
    }

    @Test("a line that fits is left exactly as it is, its runs of spaces too")
    func fitsUnchanged() {
        #expect(TextWrap.wrapped("  /new    start a chat", width: 40) == "  /new    start a chat")
    }

    @Test("a wrapped line continues under its indent, or at the hanging column a table gives")
    func continuesUnderItself() {
        #expect(TextWrap.wrapped("  alpha beta gamma delta", width: 20) == "  alpha beta gamma\n  delta")
        #expect(
            TextWrap.wrapped("  /open ID  switch to the chat ID now", width: 24, hang: 12)
                == "  /open ID  switch to\n            the chat ID\n            now")
    }

    @Test("a word wider than the width is printed whole on a line of its own, never cut")
    func longWordWhole() {
        let path = "/a/very/long/path/that/does/not/fit"
        #expect(TextWrap.wrapped("see \(path) now", width: 20) == "see\n\(path)\nnow")
    }
}
