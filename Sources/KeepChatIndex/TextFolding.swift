import Foundation

/// Text as the chat index compares it: one Unicode scalar at a time, case and accents
/// folded away, so that whatever ``KeepCore/ChatRepository/search(_:)`` finds (a match
/// ignoring case and accents) is found in the folded text too.
///
/// An ASCII letter is lower-cased in place; any other scalar is folded as Foundation folds
/// it alone (`ß` is `ss`, `É` is `e`, `ﬁ` is `fi`), once per scalar and then remembered; a
/// combining mark (general category Mn) folds to nothing, as diacritic-insensitive
/// comparison ignores it. The fold is only ever used to find candidates: a search checks
/// each candidate message against the repository's own comparison, so a fold that says
/// more than that comparison costs a read, never a wrong answer. What it must never do is
/// say less (a match the comparison sees and the fold does not); the tests compare the two
/// over text chosen to catch that.
struct TextFolding {
    private var remembered: [UInt32: Folded] = [:]
    /// For each scalar below 0x800 (Latin, Greek, Cyrillic and the like): the ASCII scalar it
    /// folds to when it folds to exactly one, ``notOneASCII`` when it folds to anything else,
    /// 0 until it is first asked for. Made on first use.
    private var latin: [UInt8] = []
    private static let notOneASCII: UInt8 = 0x80

    /// What one non-ASCII scalar folds to: none, one or a few scalars.
    private enum Folded {
        case none
        case one(UInt32)
        case many([UInt32])
    }

    init() {}

    /// Appends the folded scalars of `text` to `out`.
    mutating func fold(_ text: String, into out: inout [UInt32]) {
        var text = text
        let done = text.withUTF8 { bytes -> Bool in
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                if byte < 0x80 {
                    out.append(UInt32(byte &- 0x41 < 26 ? byte | 0x20 : byte))
                    index += 1
                    continue
                }
                guard let (scalar, length) = Self.decode(bytes, at: index) else { return false }
                append(scalar, to: &out)
                index += length
            }
            return true
        }
        // A String's UTF-8 is always well formed; this is for the impossible case only.
        if !done {
            for scalar in text.unicodeScalars { append(scalar.value, to: &out) }
        }
    }

    /// `text` folded, as an array of scalars.
    mutating func folded(_ text: String) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(text.utf8.count)
        fold(text, into: &out)
        return out
    }

    /// Appends what the scalar `value` folds to (none, one or a few scalars) to `out`.
    mutating func fold(scalar value: UInt32, into out: inout [UInt32]) {
        append(value, to: &out)
    }

    /// The one ASCII scalar `value` folds to, or `nil` when it folds to none, to several,
    /// or to one that is not ASCII: what ``fold(scalar:into:)`` appends, looked up in a
    /// table for the scalars most often seen beside ASCII (`é` is `e`).
    mutating func asciiFold(of value: UInt32) -> UInt8? {
        guard value < 0x800 else { return nil }
        if latin.isEmpty { latin = [UInt8](repeating: 0, count: 0x800) }
        var known = latin[Int(value)]
        if known == 0 {
            var out: [UInt32] = []
            append(value, to: &out)
            known = out.count == 1 && out[0] > 0 && out[0] < 0x80 ? UInt8(out[0]) : Self.notOneASCII
            latin[Int(value)] = known
        }
        return known == Self.notOneASCII ? nil : known
    }

    private mutating func append(_ value: UInt32, to out: inout [UInt32]) {
        if value < 0x80 {
            out.append(value &- 0x41 < 26 ? value | 0x20 : value)
            return
        }
        let folded: Folded
        if let known = remembered[value] {
            folded = known
        } else {
            folded = Self.fold(value)
            remembered[value] = folded
        }
        switch folded {
        case .none: break
        case .one(let scalar): out.append(scalar)
        case .many(let scalars): out.append(contentsOf: scalars)
        }
    }

    private static func fold(_ value: UInt32) -> Folded {
        guard let scalar = Unicode.Scalar(value) else { return .one(value) }
        if scalar.properties.generalCategory == .nonspacingMark { return .none }
        let folded = String(Character(scalar)).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        let scalars = folded.unicodeScalars.map(\.value).filter {
            Unicode.Scalar($0)?.properties.generalCategory != .nonspacingMark
        }
        switch scalars.count {
        case 0: return .none
        case 1: return .one(scalars[0] < 0x80 && scalars[0] &- 0x41 < 26 ? scalars[0] | 0x20 : scalars[0])
        default: return .many(scalars)
        }
    }

    /// The scalar whose UTF-8 starts at `index`, and its length; `nil` for bytes that are
    /// not UTF-8 (which a `String` never holds).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int)? {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            value = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            value = UInt32(lead & 0x0F)
        case 0xF0...0xF4:
            length = 4
            value = UInt32(lead & 0x07)
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(next & 0x3F)
        }
        return (value, length)
    }
}
