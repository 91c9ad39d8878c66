import KeepApp
import KeepConversation
import KeepEngines
import KeepPorts
import Testing

@testable import KeepReports

@Suite("The command line says an engine's remedy as the keep command that does it")
struct CommandAdviceTests {
    static let cases: [(EngineError.Remedy, String)] = [
        (.storeKey(SecretRef(.openai)), "; store one with `keep key set openai`"),
        (
            .replaceKey(SecretRef(.openrouter, account: "work")),
            "; store the right one with `keep key set openrouter --account \"work\"`"
        ),
        (
            .keyOverPlainHTTP(SecretRef(.custom), host: "192.0.2.1"),
            ". Use an https:// baseUrl; or, if that server needs no key, remove it with `keep key rm custom`; "
                + "or, for a server on a network you trust, allow that host with "
                + "`keep settings set keyOverHttpHosts 192.0.2.1`"
        ),
        (
            .pointBaseURL("https://moved.example.test/v1"),
            ". If that is the right server, point keep at it: keep settings set baseUrl https://moved.example.test/v1"
        ),
    ]

    @Test("each remedy becomes its command, after the engine's own line", arguments: cases)
    func remedyBecomesACommand(remedy: EngineError.Remedy, advice: String) {
        let error = EngineError(.unauthorized, "the server refused", remedy: remedy)
        #expect(CommandAdvice.line(error) == "the server refused" + advice)
        #expect(!error.description.contains("keep "), "the engine's own line names no command")
    }

    @Test("an engine failure inside a turn keeps its remedy and says where the question went")
    func turnFailureKeepsItsRemedy() {
        let cause = EngineError(.unauthorized, "the server wants an API key", remedy: .storeKey(SecretRef(.openai)))
        #expect(
            CommandAdvice.line(for: TurnError.engine(cause, chatId: "c1"))
                == "the server wants an API key; store one with `keep key set openai`; "
                + "the question is kept as chat c1's draft")
        // The pair: a failure without a remedy is its own line, nothing added.
        let plain = EngineError(.timeout, "the server did not answer")
        #expect(CommandAdvice.line(for: plain) == "the server did not answer")
        #expect(CommandAdvice.line(for: TurnError.noChatToContinue) == "\(TurnError.noChatToContinue)")
    }
}
