import KeepConformance

/// Seeded ways to damage a text, as a crash, a careless hand edit or a bad disk would: cut
/// it short, drop or repeat a piece, put in a stray character or a number no format
/// holds. Each call applies one to three of them.
enum TextDamage {
    static func damage(_ text: String, _ generator: inout SeededGenerator) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let at = Int.random(in: 0...scalars.count, using: &generator)
            let end = min(scalars.count, at + Int.random(in: 1...12, using: &generator))
            switch Int.random(in: 0..<7, using: &generator) {
            case 0: scalars = Array(scalars[..<at])
            case 1: scalars.removeSubrange(at..<end)
            case 2: scalars.insert(contentsOf: (strays.randomElement(using: &generator) ?? "").unicodeScalars, at: at)
            case 3: scalars.insert(contentsOf: scalars[at..<end], at: at)
            case 4 where at < scalars.count:
                scalars[at] = Unicode.Scalar(UInt8.random(in: 0x20...0x7e, using: &generator))
            case 5: scalars.insert(contentsOf: (numbers.randomElement(using: &generator) ?? "").unicodeScalars, at: at)
            default: scalars.insert(Self.anyScalar(&generator), at: at)
            }
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    /// Bytes as a bad disk leaves them: some flipped, some cut, some zeroed; often not UTF-8.
    static func damage(bytes: [UInt8], _ generator: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
            let at = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            case 1: bytes = Array(bytes[..<at])
            case 2:
                bytes[at..<min(bytes.count, at + 16)] = ArraySlice(repeating: 0, count: min(bytes.count, at + 16) - at)
            default: bytes[at] = UInt8.random(in: 0x80...0xff, using: &generator)
            }
        }
        return bytes
    }

    /// A random scalar from anywhere: controls, ASCII, the BMP, the astral planes.
    static func anyScalar(_ generator: inout SeededGenerator) -> Unicode.Scalar {
        let ranges: [ClosedRange<UInt32>] = [0x00...0x1f, 0x20...0x7e, 0x80...0xffff, 0x1_0000...0x10_ffff]
        let range = ranges[Int.random(in: 0..<ranges.count, using: &generator)]
        return Unicode.Scalar(UInt32.random(in: range, using: &generator)) ?? "\u{fffd}"
    }

    /// Pieces that mean something to a JSON parser.
    static let strays = [
        "{", "}", "[", "]", ":", ",", "\"", "\\", "\\u", "\\ud800", "\\u0000", "/*", "//", "\u{0}", "\u{feff}",
        "null", "true", "NaN", "Infinity", "'", "\n", "\t", "{\"a\":", "[[[[[[[[", "]]]]",
    ]

    /// Numbers at and past the edges of a Double and of JSON.
    static let numbers = [
        "1e400", "-1e400", "1e-400", "-0", "0.0000000000000000000001", "123456789012345678901234567890", "1.", ".5",
        "01", "+1", "0x10", "1e", "9007199254740993", "-9223372036854775809",
    ]
}
