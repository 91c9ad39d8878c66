/// The bytes a terminal sends for keys and pastes, decoded into what they mean, so that a
/// question only ever holds text and never a terminal's escape code.
///
/// Fed one chunk of bytes at a time (a key or a paste may be split anywhere), it answers
/// the keys each chunk completes:
/// - UTF-8 text as characters (a malformed sequence as U+FFFD); control characters such
///   as Ctrl-A (U+0001) as characters too, for the line editor's key bindings;
/// - the escape sequences of the editing keys (arrows, Home, End, Delete, Ctrl- and Alt-
///   arrows for word moves, in their xterm, VT220 and application-mode spellings) as one
///   ``TerminalKey/special(_:)`` each; every other escape sequence (a function key, a
///   mouse report) is swallowed whole, never handed on in pieces;
/// - Escape followed by a printable character or Backspace as ``TerminalKey/meta(_:)``
///   (Alt-B, Alt-F: word moves); Escape alone, once the reader finds nothing more came
///   soon after it (``endOfInput()``), as ``TerminalKey/escape``;
/// - a bracketed paste (`ESC [ 200 ~` … `ESC [ 201 ~`) as one ``TerminalKey/paste(_:)``
///   holding exactly the text between the markers, of any length, with the terminal's
///   carriage returns made newlines (a terminal sends Enter in a paste as CR).
package struct TerminalKeyDecoder: Sendable {
    /// A key the terminal sent.
    package enum TerminalKey: Equatable, Sendable {
        /// A character typed: text, or a control character such as Ctrl-A.
        case character(Unicode.Scalar)
        /// Escape then a character (Alt-B, Alt-F), or Escape then Backspace.
        case meta(Unicode.Scalar)
        /// An editing key sent as an escape sequence.
        case special(EditingKey)
        /// A bracketed paste: the text between the markers, carriage returns made newlines.
        case paste(String)
        /// The Escape key alone.
        case escape
    }

    /// The editing keys that arrive as escape sequences.
    package enum EditingKey: String, CaseIterable, Sendable {
        /// Arrows, Home, End and Delete, and the word moves (Ctrl- or Alt-arrows).
        case up, down, left, right, home, end, delete, wordLeft, wordRight
    }

    private enum State: Sendable {
        case ground
        /// Inside a UTF-8 sequence: the bytes so far and how many it needs in all.
        case utf8([UInt8], needs: Int)
        case escape
        /// `ESC [`, with the parameter and intermediate bytes so far.
        case csi([UInt8])
        /// `ESC O`, one final byte to come.
        case ss3
        /// Between the paste markers: the bytes so far.
        case paste([UInt8])
    }

    /// The longest control sequence kept while waiting for its final byte; a longer one is
    /// not a key and is dropped.
    private static let longestSequence = 32
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    private var state = State.ground

    /// A decoder waiting for the first byte.
    package init() {}

    /// Whether the decoder is in the middle of a paste (so the reader should keep reading).
    package var isInPaste: Bool {
        if case .paste = state { return true }
        return false
    }

    /// Whether the bytes so far end in an Escape that may yet start a sequence: the reader
    /// waits a moment for more, then calls ``endOfInput()``.
    package var awaitsEscape: Bool {
        if case .escape = state { return true }
        return false
    }

    /// The key held when no more bytes came soon: an Escape alone is the Escape key. (A
    /// sequence cut short is not a key and stays held, to be completed or dropped.)
    package mutating func endOfInput() -> [TerminalKey] {
        guard awaitsEscape else { return [] }
        state = .ground
        return [.escape]
    }

    /// The keys `bytes` completes, in order.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [TerminalKey] {
        var keys: [TerminalKey] = []
        for byte in bytes { step(byte, into: &keys) }
        return keys
    }

    private mutating func step(_ byte: UInt8, into keys: inout [TerminalKey]) {
        switch state {
        case .ground:
            ground(byte, into: &keys)
        case .utf8(var bytes, let needs):
            guard byte & 0xC0 == 0x80 else {
                keys.append(.character("\u{FFFD}"))
                state = .ground
                ground(byte, into: &keys)
                return
            }
            bytes.append(byte)
            guard bytes.count == needs else {
                state = .utf8(bytes, needs: needs)
                return
            }
            state = .ground
            let decoded = String(decoding: bytes, as: UTF8.self).unicodeScalars
            keys.append(.character(decoded.count == 1 ? decoded.first ?? "\u{FFFD}" : "\u{FFFD}"))
        case .escape:
            switch byte {
            case UInt8(ascii: "["): state = .csi([])
            case UInt8(ascii: "O"): state = .ss3
            case 0x1B: state = .escape
            case 0x20..<0x7F, 0x7F, 0x08:
                state = .ground
                keys.append(.meta(Unicode.Scalar(byte)))
            default:
                state = .ground
                ground(byte, into: &keys)
            }
        case .csi(var body):
            switch byte {
            case 0x20...0x3F:
                body.append(byte)
                state = body.count > Self.longestSequence ? .ground : .csi(body)
            case 0x40...0x7E:
                state = .ground
                let parameters = String(decoding: body, as: UTF8.self)
                if byte == UInt8(ascii: "~"), parameters == "200" {
                    state = .paste([])
                } else if let key = Self.csiKey(parameters: parameters, final: byte) {
                    keys.append(.special(key))
                }
            default:
                // Not a control sequence after all: drop what was read, take the byte anew.
                state = .ground
                ground(byte, into: &keys)
            }
        case .ss3:
            state = .ground
            if let key = Self.finalKey(byte) { keys.append(.special(key)) }
        case .paste(var bytes):
            state = .ground  // so the bytes are appended in place, not copied
            bytes.append(byte)
            if byte == UInt8(ascii: "~"), bytes.count >= Self.pasteEnd.count,
                bytes.suffix(Self.pasteEnd.count).elementsEqual(Self.pasteEnd)
            {
                state = .ground
                keys.append(.paste(Self.pastedText(bytes.dropLast(Self.pasteEnd.count))))
            } else {
                state = .paste(bytes)
            }
        }
    }

    private mutating func ground(_ byte: UInt8, into keys: inout [TerminalKey]) {
        switch byte {
        case 0x1B:
            state = .escape
        case 0x00..<0x80:
            keys.append(.character(Unicode.Scalar(byte)))
        case 0xC2...0xDF:
            state = .utf8([byte], needs: 2)
        case 0xE0...0xEF:
            state = .utf8([byte], needs: 3)
        case 0xF0...0xF4:
            state = .utf8([byte], needs: 4)
        default:
            keys.append(.character("\u{FFFD}"))
        }
    }

    /// The key a CSI sequence stands for; `nil` for one that is not an editing key.
    private static func csiKey(parameters: String, final: UInt8) -> EditingKey? {
        let fields = parameters.split(separator: ";", omittingEmptySubsequences: false)
        if final == UInt8(ascii: "~") {
            switch fields.first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return nil
            }
        }
        guard let key = finalKey(final) else { return nil }
        // xterm's modifier field: 3 Alt, 5 Ctrl (7 both) move a word at a time.
        let modifier = fields.count > 1 ? Int(fields[1]) ?? 1 : 1
        let byWord = [3, 5, 7].contains(modifier)
        switch key {
        case .left where byWord: return .wordLeft
        case .right where byWord: return .wordRight
        default: return key
        }
    }

    /// The key an arrow-style final byte names (`A` up … `H` home, `F` end).
    private static func finalKey(_ byte: UInt8) -> EditingKey? {
        switch byte {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }

    /// A paste's bytes as text, each CR LF or lone CR a newline.
    private static func pastedText(_ bytes: some Collection<UInt8>) -> String {
        var normalised: [UInt8] = []
        normalised.reserveCapacity(bytes.count)
        var afterCR = false
        for byte in bytes {
            if byte == 0x0D {
                normalised.append(0x0A)
                afterCR = true
                continue
            }
            if !(byte == 0x0A && afterCR) { normalised.append(byte) }
            afterCR = false
        }
        return String(decoding: normalised, as: UTF8.self)
    }
}
