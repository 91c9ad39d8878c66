import Testing

@testable import KeepTerminal

@Suite("Text from outside keep never controls the terminal")
struct TerminalTextTests {
    @Test(
        "each control character is shown as a visible stand-in, never passed to the terminal",
        arguments: [
            ("\u{1B}]0;owned\u{07}", "^[]0;owned^G"),  // window title
            ("\u{1B}]52;c;c2VjcmV0\u{1B}\\", "^[]52;c;c2VjcmV0^[\\"),  // OSC 52 clipboard write
            ("\u{1B}[8mhidden\u{1B}[0m", "^[[8mhidden^[[0m"),  // concealed text
            ("shown\roverwritten", "shown^Moverwritten"),
            ("\u{9B}31m\u{9D}0;t\u{9C}", "<U+009B>31m<U+009D>0;t<U+009C>"),  // one-byte CSI, OSC, ST
            ("nul\u{0}del\u{7F}", "nul^@del^?"),
            ("abc\u{202E}fed", "abc<U+202E>fed"),  // right-to-left override
        ])
    func neutralisesControls(_ input: String, _ shown: String) {
        #expect(TerminalText.neutralised(input) == shown)
    }

    @Test("newlines, tabs and any printable text, accents and emoji included, pass unchanged")
    func keepsText() {
        let text = "Résumé:\n\t- naïve café 👩‍💻 日本語 **bold** `code`"
        #expect(TerminalText.neutralised(text) == text)
    }

    @Test("an escape sequence split across streamed pieces is neutralised in each piece")
    func splitSequence() {
        let pieces = ["before \u{1B}", "]52;c;", "c2VjcmV0\u{07} after"]
        let shown = pieces.map(TerminalText.neutralised).joined()
        #expect(shown == "before ^[]52;c;c2VjcmV0^G after")
        #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }
}
