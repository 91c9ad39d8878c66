import Testing

@testable import KeepTerminal

/// The terminal's bytes decoded into keys: text, editing keys, pastes, and every other
/// escape sequence swallowed whole.
@Suite("Keys decoded from a terminal's bytes")
struct TerminalKeyDecoderTests {
    typealias Key = TerminalKeyDecoder.TerminalKey

    static func decode(_ bytes: [UInt8], split size: Int = 0) -> [Key] {
        var decoder = TerminalKeyDecoder()
        guard size > 0 else { return decoder.feed(bytes) }
        return stride(from: 0, to: bytes.count, by: size).flatMap {
            decoder.feed(bytes[$0..<min($0 + size, bytes.count)])
        }
    }

    static func characters(_ text: String) -> [Key] { text.unicodeScalars.map(Key.character) }

    static let cases: [(name: String, bytes: [UInt8], keys: [Key])] = [
        ("text and controls", Array("ab\u{01}\r".utf8), characters("ab\u{01}\r")),
        ("UTF-8", Array("é日🙂".utf8), characters("é日🙂")),
        (
            "arrows (xterm and application mode)", Array("\u{1B}[A\u{1B}OB\u{1B}[C\u{1B}[D".utf8),
            [.special(.up), .special(.down), .special(.right), .special(.left)]
        ),
        (
            "Home and End, every spelling",
            Array("\u{1B}[H\u{1B}[1~\u{1B}[7~\u{1B}OH\u{1B}[F\u{1B}[4~\u{1B}[8~\u{1B}OF".utf8),
            [Key](repeating: .special(.home), count: 4) + [Key](repeating: .special(.end), count: 4)
        ),
        ("Delete", Array("\u{1B}[3~".utf8), [.special(.delete)]),
        (
            "Ctrl- and Alt-arrows move by word", Array("\u{1B}[1;5D\u{1B}[1;3C\u{1B}[1;2C".utf8),
            [.special(.wordLeft), .special(.wordRight), .special(.right)]
        ),
        ("Alt-B and Alt-F", Array("\u{1B}b\u{1B}f".utf8), [.meta("b"), .meta("f")]),
        (
            "function keys and mouse reports are dropped whole", Array("a\u{1B}[15~\u{1B}OP\u{1B}[<0;3;4Mb".utf8),
            characters("ab")
        ),
        (
            "a paste, its CRs as newlines, escape codes inside kept as pasted",
            Array("x\u{1B}[200~one\r\ntwo\rthree\u{1B}[A\u{1B}[201~y".utf8),
            [.character("x"), .paste("one\ntwo\nthree\u{1B}[A"), .character("y")]
        ),
        ("an empty paste", Array("\u{1B}[200~\u{1B}[201~".utf8), [.paste("")]),
        (
            "malformed UTF-8 is a replacement character", [0x61, 0xFF, 0x62, 0xE6, 0x97, 0x61],
            characters("a\u{FFFD}b\u{FFFD}a")
        ),
    ]

    @Test("each byte sequence decodes to its keys, whole or split byte by byte", arguments: cases, [0, 1, 2])
    func decodes(_ testCase: (name: String, bytes: [UInt8], keys: [Key]), _ split: Int) {
        #expect(Self.decode(testCase.bytes, split: split) == testCase.keys, "\(testCase.name)")
    }

    @Test("a paste of 20,000 bytes arrives whole, as one key")
    func longPaste() {
        let text = String(repeating: "0123456789\n", count: 2000).prefix(20_000)
        var decoder = TerminalKeyDecoder()
        var keys: [Key] = []
        let bytes = Array(("\u{1B}[200~" + text + "\u{1B}[201~").utf8)
        for start in stride(from: 0, to: bytes.count, by: 4096) {
            keys += decoder.feed(bytes[start..<min(start + 4096, bytes.count)])
            if start + 4096 < bytes.count { #expect(decoder.isInPaste) }
        }
        #expect(keys == [.paste(String(text))])
    }
}
