/// Text from outside keep (a server, a file on disk, a setting) made safe to show on a terminal.
///
/// A terminal obeys the control characters it is sent: ESC starts sequences that set the
/// window title, write the clipboard (OSC 52), hide text or move the cursor; a carriage
/// return overwrites what a line showed; bidirectional overrides reorder it. Text that keep
/// did not write itself is passed through ``neutralised(_:)`` before it reaches a terminal,
/// so each such character is shown as a visible, inert stand-in and never obeyed.
///
/// The mapping works one Unicode scalar at a time and keeps no state, so a streamed answer
/// can be neutralised piece by piece, wherever the pieces split an escape sequence. Newline
/// and tab are left as they are; everything else that is not printable text is replaced:
/// - C0 controls (U+0000–U+001F) and DEL in caret notation: ESC is `^[`, BEL `^G`, CR `^M`;
/// - C1 controls (U+0080–U+009F), among them the one-byte CSI and OSC, as `<U+009B>`;
/// - the bidirectional embedding, override and isolate marks (U+202A–U+202E,
///   U+2066–U+2069) as `<U+202E>`.
///
/// What is stored is never neutralised: the chat file keeps the server's bytes, and
/// `--json` escapes control characters the JSON way.
package enum TerminalText {
    /// `text` with every control character replaced by a visible stand-in (see the type's
    /// contract); text without any comes back unchanged.
    package static func neutralised(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.append(scalar)
                continue
            }
            result.append(contentsOf: standIn(for: scalar).unicodeScalars)
        }
        return String(result)
    }

    /// Whether `scalar` would be obeyed by a terminal rather than shown (newline and tab aside).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F, 0x80...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
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
