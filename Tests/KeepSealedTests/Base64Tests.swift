import Foundation
import KeepConformance
import Testing

@testable import KeepSealed

@Suite("Base64 of sealed records")
struct Base64Tests {
    private func encoded(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { Base64.encode($0, into: &out) }
        return out
    }

    private func decoded(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        return Array(text.utf8).withUnsafeBufferPointer { Base64.decode($0, into: &out) } ? out : nil
    }

    @Test("every length from 0 to 200 encodes as Foundation does and decodes back to its bytes")
    func roundTrip() {
        var generator = SeededGenerator(seed: 64)
        for count in 0...200 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = encoded(bytes)
            #expect(String(decoding: text, as: UTF8.self) == Data(bytes).base64EncodedString(), "\(count) bytes")
            #expect(decoded(String(decoding: text, as: UTF8.self)) == bytes, "\(count) bytes")
        }
    }

    @Test("text that is not canonical base64 is refused: its length, a byte outside the alphabet, inner padding")
    func refusesWhatIsNotBase64() {
        #expect(decoded("QUJD") == Array("ABC".utf8), "the scan sees a valid quantum first")
        for text in ["QUJ", "QUJDR", "QU=D", "Q===", "QUJD====", "QU JD", "QUJ\u{0}", "QUJ-", "QUJ_", "QUI=QUJD"] {
            #expect(decoded(text) == nil, "\(text.debugDescription)")
        }
        #expect(decoded("") == [])
        #expect(decoded("QQ==") == [0x41] && decoded("QUI=") == [0x41, 0x42])
    }

    @Test("decoding into a buffer used before replaces what it held, and a refusal leaves it empty")
    func reusedBuffer() {
        var out: [UInt8] = []
        func decode(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { Base64.decode($0, into: &out) }
        }
        #expect(decode("QUJDREVGR0hJ") && out == Array("ABCDEFGHI".utf8))
        #expect(decode("QUI=") && out == Array("AB".utf8), "a shorter text after a longer one")
        #expect(!decode("QU=D") && out.isEmpty)
        #expect(decode("") && out.isEmpty)
    }

    /// The rule, as plainly as it can be said: a multiple of 4 characters of the alphabet,
    /// with one or two `=` only at the very end; each quantum's 24 bits, big-endian, less one
    /// byte per `=`.
    private static func reference(_ text: [UInt8]) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var padding = 0
        if text.last == UInt8(ascii: "=") { padding = text.dropLast().last == UInt8(ascii: "=") ? 2 : 1 }
        var out: [UInt8] = []
        for start in stride(from: 0, to: text.count, by: 4) {
            var bits: UInt32 = 0
            for index in start..<(start + 4) {
                let isPadding = index >= text.count - padding
                guard isPadding || alphabetValue[Int(text[index])] != nil else { return nil }
                bits = bits << 6 | UInt32(isPadding ? 0 : alphabetValue[Int(text[index])] ?? 0)
            }
            out += [16, 8, 0].map { UInt8(truncatingIfNeeded: bits >> $0) }
        }
        out.removeLast(padding)
        return out
    }

    /// Each byte's place in the alphabet, if it has one.
    private static let alphabetValue: [UInt8?] = {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var values = [UInt8?](repeating: nil, count: 256)
        for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
        return values
    }()

    /// What the buffer form answers for `text`, its bytes cut to the count it answers.
    private func rawDecoded(_ text: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0xEE, count: text.count / 4 * 3)
        let count = text.withUnsafeBufferPointer { text in out.withUnsafeMutableBytes { Base64.decode(text, into: $0) }
        }
        return count.map { Array(out[..<$0]) }
    }

    /// What the array form answers for `text`.
    private func arrayDecoded(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = [1, 2, 3]
        return text.withUnsafeBufferPointer { Base64.decode($0, into: &out) } ? out : nil
    }

    @Test("the table decoder answers as the rule does, for every length to 40 and every byte at every place")
    func decoderMatchesTheRule() {
        var generator = SeededGenerator(seed: 46)
        for count in 0...30 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = encoded(bytes)
            #expect(rawDecoded(text) == bytes && arrayDecoded(text) == bytes, "\(count) bytes")
            var differing: [String] = []
            for place in text.indices {
                for byte in UInt8.min...UInt8.max {
                    var altered = text
                    altered[place] = byte
                    let expected = Self.reference(altered)
                    if rawDecoded(altered) != expected || arrayDecoded(altered) != expected {
                        differing.append("\(byte) at \(place)")
                    }
                }
            }
            #expect(differing.isEmpty, "\(count) bytes: \(differing.prefix(5))")
        }
        for length in 0...64 {
            for filler in [UInt8(ascii: "Q"), UInt8(ascii: "=")] {
                let text = Array(repeating: filler, count: length)
                #expect(rawDecoded(text) == Self.reference(text), "\(length) characters")
            }
        }
    }

    @Test("the pair decoder answers as the rule does at every length to 200 and in long texts, altered or not")
    func pairDecoderMatchesTheRule() {
        var generator = SeededGenerator(seed: 212)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)
        var texts: [[UInt8]] = []
        for length in 0...200 {
            // Any length, from the alphabet and `=`: mostly refused, as the rule says.
            texts.append((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 })
        }
        for count in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 47, 48, 49, 148, 149, 150, 65_536, 100_003] {
            let text = encoded((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
            texts.append(text)
            guard !text.isEmpty else { continue }
            for _ in 0..<12 {
                var altered = text
                let place = Int.random(in: 0..<text.count, using: &generator)
                altered[place] = UInt8.random(in: 0...255, using: &generator)
                texts.append(altered)
                var padded = text
                padded[place] = UInt8(ascii: "=")
                texts.append(padded)
            }
            // The first and the last character of the pairs decoded eight at a time, of the odd
            // quantum before the last, and of the last: each place the decoder treats on its own.
            for place in Set([0, 7, 8, text.count - 8, text.count - 5, text.count - 4, text.count - 1])
            where place >= 0 && place < text.count {
                for byte: UInt8 in [0, UInt8(ascii: "="), UInt8(ascii: "-"), 0x80, 0xFF] {
                    var altered = text
                    altered[place] = byte
                    texts.append(altered)
                }
            }
        }
        var differing: [String] = []
        for text in texts {
            let expected = Self.reference(text)
            if rawDecoded(text) != expected || arrayDecoded(text) != expected {
                differing.append("\(text.count) characters: \(String(decoding: text.prefix(24), as: UTF8.self))")
            }
        }
        #expect(differing.isEmpty, "\(differing.count) differ: \(differing.prefix(5))")
        // Both answers are tried: texts refused, and texts of more than a thousand bytes.
        #expect(texts.contains { Self.reference($0) == nil })
        #expect(texts.contains { Self.reference($0)?.count ?? 0 > 1000 })
    }

    @Test("the decoder answers how many bytes it wrote, and refuses a buffer too small for the text")
    func decoderIntoABuffer() {
        let text = Array("QUJDREVGR0g=".utf8)
        var out = [UInt8](repeating: 0, count: 9)
        let count = text.withUnsafeBufferPointer { text in out.withUnsafeMutableBytes { Base64.decode(text, into: $0) }
        }
        #expect(count == 8 && Array(out[..<8]) == Array("ABCDEFGH".utf8))
        var small = [UInt8](repeating: 0, count: 8)
        #expect(
            text.withUnsafeBufferPointer { text in small.withUnsafeMutableBytes { Base64.decode(text, into: $0) } }
                == nil)
        #expect(text.withUnsafeBufferPointer { Base64.decodedCount($0) } == 8)
        #expect(Array("QUJ".utf8).withUnsafeBufferPointer { Base64.decodedCount($0) } == nil)
    }
}
