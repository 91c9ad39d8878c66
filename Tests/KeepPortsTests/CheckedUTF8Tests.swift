import KeepConformance
import Testing

@testable import KeepPorts

@Suite("Checked UTF-8")
struct CheckedUTF8Tests {
    @Test(
        "bytes become a string exactly when String(validating:) says they are UTF-8",
        arguments: [
            [], Array("chat".utf8), Array("Grüße, 世界 🙂".utf8), [0xEF, 0xBF, 0xBD],  // U+FFFD itself is valid
            [0xFF], [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98],
            [0x61, 0xF4, 0x90, 0x80, 0x80], Array("ok".utf8) + [0xC3],
        ] as [[UInt8]])
    func agreesWithTheStandardLibrary(_ bytes: [UInt8]) {
        #expect(String(checkedUTF8: bytes) == String(validating: bytes, as: UTF8.self))
        #expect(bytes.withUnsafeBufferPointer { String.isValidUTF8($0) } == (String(checkedUTF8: bytes) != nil))
    }

    @Test(
        "bytes are valid UTF-8 exactly when String(validating:) says so, on random bytes and runs of ASCII")
    func validityAgreesWithTheStandardLibraryOnRandomBytes() {
        // Runs of ASCII long and short, whole characters of every length, and the sequences
        // Unicode refuses (a lone continuation, an overlong form, a surrogate, past U+10FFFF,
        // a character cut short), strung together at random, with random bytes between.
        let pieces: [[UInt8]] = [
            Array("plain text, ".utf8), Array("a".utf8), Array("ü".utf8), Array("世".utf8), Array("🙂".utf8),
            [0xEF, 0xBF, 0xBD], [0xFF], [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xC3], [0xF5, 0x80, 0x80, 0x80],
        ]
        var generator = SeededGenerator(seed: 0x5554_4638)
        var invalid = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...10, using: &generator) {
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    bytes.append(UInt8.random(in: 0...255, using: &generator))
                } else {
                    bytes += pieces.randomElement(using: &generator)!
                }
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            if !expected { invalid += 1 }
            #expect(bytes.withUnsafeBufferPointer { String.isValidUTF8($0) } == expected, "\(bytes)")
        }
        #expect(invalid > 1_000 && invalid < 19_000, "both answers are tried often: \(invalid) invalid")
    }
}
