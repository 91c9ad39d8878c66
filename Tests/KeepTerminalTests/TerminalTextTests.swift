import Foundation
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
            ("\u{1B}P1$r\u{1B}\\", "^[P1$r^[\\"),  // DCS
            ("\u{1B}_apc\u{1B}^pm\u{1B}Xsos", "^[_apc^[^pm^[Xsos"),  // APC, PM, SOS
            ("shown\roverwritten", "shown^Moverwritten"),
            ("\u{9B}31m\u{9D}0;t\u{9C}", "<U+009B>31m<U+009D>0;t<U+009C>"),  // one-byte CSI, OSC, ST
            ("\u{90}dcs\u{98}sos\u{9E}pm\u{9F}apc", "<U+0090>dcs<U+0098>sos<U+009E>pm<U+009F>apc"),
            ("next\u{85}line", "next<U+0085>line"),  // NEL
            ("nul\u{0}del\u{7F}", "nul^@del^?"),
            ("abc\u{202E}fed", "abc<U+202E>fed"),  // right-to-left override
            ("\u{2066}isolate\u{2069}", "<U+2066>isolate<U+2069>"),
            ("l\u{200E}r\u{200F}a\u{61C}", "l<U+200E>r<U+200F>a<U+061C>"),  // LRM, RLM, ALM
            ("gpt\u{200B}4\u{2060}o\u{FEFF}", "gpt<U+200B>4<U+2060>o<U+FEFF>"),  // zero-width space, word joiner, BOM
            ("gpt\u{200D}4\u{200C}o", "gpt<U+200D>4<U+200C>o"),  // joiners between Latin letters
            ("soft\u{AD}hyphen", "soft<U+00AD>hyphen"),
            ("one\u{2028}two\u{2029}three", "one<U+2028>two<U+2029>three"),  // line, paragraph separators
            ("tag\u{E0041}\u{E007F}", "tag<U+E0041><U+E007F>"),  // tag characters
        ])
    func neutralisesControls(_ input: String, _ shown: String) {
        #expect(TerminalText.neutralised(input) == shown)
        #expect(!TerminalText.neutralised(input).unicodeScalars.contains(where: TerminalText.isObeyed))
    }

    @Test("newlines, tabs and any printable text, accents, emoji and joined scripts included, pass unchanged")
    func keepsText() {
        let text = "Résumé:\n\t- naïve café 👩‍💻 ❤️‍🔥 👨🏽‍🦰 日本語 می‌خواهم क्‍ष **bold** `code`"
        #expect(TerminalText.neutralised(text) == text)
    }

    @Test("a one-line field shows its newlines and tabs as stand-ins too, and nothing else changes")
    func oneLine() {
        #expect(TerminalText.neutralised("a title\nfake line\tx", oneLine: true) == "a title^Jfake line^Ix")
        #expect(TerminalText.neutralised("plain title", oneLine: true) == "plain title")
        #expect(TerminalText.neutralised("a\nb") == "a\nb")
    }

    @Test("a joiner at a piece's edge is shown, not kept: the neighbour it would join is in another piece")
    func joinerAtAnEdge() {
        #expect(TerminalText.neutralised("👩\u{200D}") == "👩<U+200D>")
        #expect(TerminalText.neutralised("\u{200D}💻") == "<U+200D>💻")
        #expect(TerminalText.neutralised("👩\u{200D}💻") == "👩\u{200D}💻")
    }

    @Test("the rule names every character of categories Cc, Cf, Zl and Zp and every tag, and nothing else but tags")
    func ruleIsTheCategories() {
        var missed: [String] = []
        var extra: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let category = scalar.properties.generalCategory
            let inCategories = [.control, .format, .lineSeparator, .paragraphSeparator].contains(category)
            let named = inCategories && scalar != "\n" && scalar != "\t" || (0xE0000...0xE007F).contains(value)
            if named && !TerminalText.isObeyed(scalar) { missed.append(String(value, radix: 16)) }
            if !named && TerminalText.isObeyed(scalar) { extra.append(String(value, radix: 16)) }
        }
        #expect(missed.isEmpty, "not replaced: \(missed.prefix(20))")
        #expect(extra.isEmpty, "replaced though not in the rule: \(extra.prefix(20))")
    }

    @Test("an escape sequence split across streamed pieces is neutralised in each piece")
    func splitSequence() {
        let pieces = ["before \u{1B}", "]52;c;", "c2VjcmV0\u{07} after"]
        let shown = pieces.map { TerminalText.neutralised($0) }.joined()
        #expect(shown == "before ^[]52;c;c2VjcmV0^G after")
        #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }

    @Test("in JSON every character the rule names is a \\u escape, and the JSON means the same")
    func json() throws {
        let hostile = "a\u{202E}b\u{9B}c\u{85}d\u{2028}e\u{2029}f\u{200B}g\u{E0041}h\u{7F}i👩\u{200D}💻"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let raw = String(decoding: try encoder.encode(["text": hostile, "n\u{202E}": "x"]), as: UTF8.self)
        #expect(raw.unicodeScalars.contains(where: TerminalText.isObeyed), "the encoder leaves some raw")
        let escaped = TerminalText.escapedInJSON(raw)
        #expect(!escaped.unicodeScalars.contains { TerminalText.isObeyed($0) && $0 != "\n" }, "\(escaped)")
        for escape in [#"\u202e"#, #"\u009b"#, #"\u0085"#, #"\u2028"#, #"\u2029"#, #"\u200b"#, #"\udb40\udc41"#] {
            #expect(escaped.contains(escape), "\(escape) in \(escaped)")
        }
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(escaped.utf8))
        #expect(decoded == ["text": hostile, "n\u{202E}": "x"])
        #expect(TerminalText.escapedInJSON("{\n  \"a\" : \"b\"\n}") == "{\n  \"a\" : \"b\"\n}")
    }
}
