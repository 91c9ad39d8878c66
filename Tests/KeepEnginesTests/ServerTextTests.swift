import Testing

@testable import KeepEngines

@Suite("A server's text in keep's words")
struct ServerTextTests {
    @Test("a server's text shown in a line has the key hidden and every control character neutralised by the one rule")
    func shown() {
        let key = APIKey("sk-abc123")
        let said = "bad key sk-abc123\u{1B}]0;x\u{07}\n\u{202E}next"
        #expect(ServerText.shown(said, hidingKey: key) == "bad key [your key]^[]0;x^G^J<U+202E>next")
        #expect(ServerText.hidingKey(said, key).contains("\u{1B}]0;x\u{07}"), "what is kept holds the server's bytes")
        #expect(ServerText.shown("plain words", hidingKey: nil) == "plain words")
    }
}
