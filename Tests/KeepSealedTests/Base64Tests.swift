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
}
