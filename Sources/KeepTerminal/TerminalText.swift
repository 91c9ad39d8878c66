/// Text from outside keep (a server, a file on disk, an import, a setting) made safe to show
/// on a terminal, or to write where a person will read it: the one rule keep applies to
/// every such string, wherever it prints it.
///
/// A terminal obeys the control characters it is sent: ESC starts sequences that set the
/// window title, write the clipboard (OSC 52), hide text or move the cursor; a carriage
/// return overwrites what a line showed; bidirectional controls reorder it; zero-width and
/// other invisible format characters make one text look like another (a spoofed model id).
/// Text that keep did not write itself is passed through ``neutralised(_:oneLine:)`` before
/// it is printed, so each such character is shown as a visible, inert stand-in and never
/// obeyed; `--json` output is passed through ``escapedInJSON(_:)``, so each is a `\u` escape.
///
/// What is replaced (``isObeyed(_:)``: the one rule):
/// - every control character, general category Cc: C0 (U+0000–U+001F), DEL, and C1
///   (U+0080–U+009F: the one-character CSI, OSC, DCS, APC, PM, SOS, ST and NEL among
///   them); so every ESC, CSI, OSC, DCS, APC, PM and SOS sequence is broken at its start;
/// - every format character, general category Cf: the bidirectional embeddings,
///   overrides and isolates (U+202A–U+202E, U+2066–U+2069), the marks LRM, RLM and ALM,
///   zero-width space and joiners, word joiner, invisible operators, the byte-order mark,
///   the soft hyphen, interlinear annotations, and the tag characters (U+E0000–U+E007F);
/// - the line and paragraph separators (U+2028, U+2029: categories Zl and Zp).
///
/// The stand-ins: a C0 character and DEL in caret notation (ESC is `^[`, BEL `^G`, CR `^M`,
/// DEL `^?`), anything else as `<U+202E>`. Newline and tab are kept as they are, unless
/// `oneLine` asks for one line (an id, a title, a model id inside a line of keep's own),
/// where they are `^J` and `^I` too.
///
/// One exception keeps emoji and the scripts that need them legible: a zero-width joiner
/// or non-joiner (U+200D, U+200C) between two characters that are both outside ASCII and
/// are letters, marks or emoji (👩‍💻, Persian and Indic words) is kept, since it hides
/// nothing there that the two characters do not already show; between anything else (a
/// Latin `gpt‍4`) it is replaced. Its neighbours are looked at within the same string:
/// at a piece's edge, in a streamed answer, the joiner is replaced (shown, never hidden).
///
/// Otherwise the mapping works one Unicode scalar at a time and keeps no state, so a
/// streamed answer is neutralised piece by piece, wherever the pieces split a sequence.
/// What is stored is never neutralised: the chat file keeps the server's bytes.
package enum TerminalText {
    /// `text` with every character ``isObeyed(_:)`` names replaced by a visible stand-in
    /// (see the type's contract): newline and tab kept, or, with `oneLine`, shown as `^J`
    /// and `^I` so that `text` stays on the line it is printed in. Text without any such
    /// character comes back unchanged.
    package static func neutralised(_ text: String, oneLine: Bool = false) -> String {
        let scalars = text.unicodeScalars
        guard scalars.contains(where: { isObeyed($0) || (oneLine && isLineBreaking($0)) }) else { return text }
        var result = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let nextIndex = scalars.index(after: index)
            let next = nextIndex < scalars.endIndex ? scalars[nextIndex] : nil
            if oneLine && isLineBreaking(scalar) || isObeyed(scalar) && !isHarmlessJoiner(scalar, previous, next) {
                result.append(contentsOf: standIn(for: scalar).unicodeScalars)
            } else {
                result.append(scalar)
            }
            previous = scalar
            index = nextIndex
        }
        return String(result)
    }

    /// Whether a terminal could obey `scalar`, or a reader be misled by it, rather than see
    /// it: a control (Cc, but newline and tab), a format character (Cf, tags included), or a
    /// line or paragraph separator (Zl, Zp). The one rule, for the terminal and for JSON.
    package static func isObeyed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x20...0x7E, 0xA0...0xAC, 0xAE...0x5FF: return false  // ASCII and Latin text: the fast answer
        default:
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: return true
            default: return (0xE0000...0xE007F).contains(scalar.value)  // tags, Cf or unassigned
            }
        }
    }

    /// `json` (JSON text, as an encoder wrote it) with every character ``isObeyed(_:)``
    /// names written as a `\u` escape (two, a surrogate pair, above U+FFFF), newlines
    /// between tokens aside. Such characters can only stand inside strings in JSON text, so
    /// the result is the same JSON, to any parser, with none of them left raw.
    package static func escapedInJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { isObeyed($0) && $0 != "\n" }) else { return json }
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard isObeyed(scalar), scalar != "\n" else {
                result.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                result.append(contentsOf: ("\\u" + hex4(UInt32(unit)).lowercased()).unicodeScalars)
            }
        }
        return String(result)
    }

    // MARK: - The parts of the rule

    /// Newline and tab: kept in text of many lines, shown in a one-line field.
    private static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\t"
    }

    /// Whether `scalar` is a zero-width joiner or non-joiner between two characters that are
    /// both outside ASCII and are letters, marks or emoji: the one case it is kept.
    private static func isHarmlessJoiner(
        _ scalar: Unicode.Scalar, _ previous: Unicode.Scalar?, _ next: Unicode.Scalar?
    ) -> Bool {
        guard scalar.value == 0x200C || scalar.value == 0x200D, let previous, let next else { return false }
        return joins(previous) && joins(next)
    }

    private static func joins(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value > 0x7F, !isObeyed(scalar) else { return false }
        let properties = scalar.properties
        if properties.isEmoji || properties.isEmojiModifier || scalar.value == 0xFE0F { return true }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark,
            .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    private static func standIn(for scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00...0x1F: "^" + String(Unicode.Scalar(UInt8(scalar.value) + 0x40))
        case 0x7F: "^?"
        default: "<U+" + hex4(scalar.value) + ">"
        }
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
