import Testing

@testable import KeepEngines

/// The key hidden in text that arrives in pieces, and the key's own memory.
@Suite("The key, held as bytes and hidden in what a server sends")
struct KeyRedactorTests {
    static let key = "sk-abab-aba"

    /// Every way of cutting `text` into pieces at up to two places, fed in order.
    static func fed(_ text: String, key: String?) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var results: [String] = []
        for first in 0...scalars.count {
            for second in first...scalars.count {
                var redactor = KeyRedactor(hiding: APIKey(key))
                let pieces = [scalars[..<first], scalars[first..<second], scalars[second...]]
                var out = ""
                for piece in pieces {
                    var part = String.UnicodeScalarView()
                    part.append(contentsOf: piece)
                    out += redactor.feed(String(part))
                }
                results.append(out + redactor.finish())
            }
        }
        return results
    }

    @Test(
        "the key is hidden however the text is cut, and text that only starts like the key is kept whole",
        arguments: [
            ("sk-abab-aba", "[your key]"),
            ("a sk-abab-aba b sk-abab-aba", "a [your key] b [your key]"),
            ("sk-abab-absk-abab-aba", "sk-abab-ab[your key]"),
            ("sk-abab-abab-aba", "[your key]b-aba"),
            ("sk-abab-abx sk-abab-ab", "sk-abab-abx sk-abab-ab"),
            ("sk-ab", "sk-ab"),
            ("Bearer sk-abab-aba!", "Bearer [your key]!"),
            ("wörld sk-abab-aba ☃", "wörld [your key] ☃"),
            ("", ""),
        ])
    func hiddenHoweverCut(_ text: String, _ expected: String) {
        for result in Self.fed(text, key: Self.key) { #expect(result == expected, "\(text)") }
    }

    @Test("without a key, text goes through as it is, at once")
    func noKey() {
        var redactor = KeyRedactor(hiding: nil)
        #expect(redactor.feed("sk-abab-aba") == "sk-abab-aba")
        #expect(redactor.finish() == "")
    }

    @Test("what may begin the key is held back until the next piece says, and no longer")
    func heldBack() {
        var redactor = KeyRedactor(hiding: APIKey(Self.key))
        #expect(redactor.feed("hello sk-ab") == "hello ")
        #expect(redactor.feed("c") == "sk-abc")
        #expect(redactor.feed("sk-abab-") == "")
        #expect(redactor.finish() == "sk-abab-")
    }

    @Test("a key's bytes are overwritten when it is wiped; the pair: before, they are the key")
    func wipe() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: Array("sk-12345".utf8))
        #expect(Array(buffer) == Array("sk-12345".utf8))
        APIKey.wipe(buffer)
        #expect(Array(buffer) == Array(repeating: 0, count: 8))
    }

    @Test(
        "a key with a control character never goes into a header",
        arguments: [
            ("sk-a\r\nX: 1", true), ("sk-\u{7f}", true), ("sk-\u{85}", true), ("sk-é☃", false), ("sk-1", false),
        ])
    func controlCharacters(_ text: String, _ holds: Bool) throws {
        #expect(try #require(APIKey(text)).holdsControlCharacter == holds)
    }
}
