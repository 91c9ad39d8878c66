import KeepConformance
import KeepCore
import KeepPorts
import Testing

/// The one rule for a key's text: trimmed at both ends on the way in and out, one line of
/// printable characters inside.
@Suite("The text of a key")
struct KeyTextTests {
    @Test(
        "a key is trimmed of white space and line breaks at its ends, as keep key set and a read both do",
        arguments: [
            ("sk-abc\n", "sk-abc"), ("sk-abc\r\n", "sk-abc"), ("  sk-abc\t\n", "sk-abc"), ("sk-abc", "sk-abc"),
            ("\n", ""),
        ])
    func trimmed(_ given: String, _ expected: String) {
        #expect(KeyText.trimmed(given) == expected)
    }

    @Test(
        "a key holding a line break or control character inside is refused, naming the rule and never the key",
        arguments: ["sk-a\nb", "sk-a\rb", "sk-a\u{07}b", "sk-a\tb", "sk-a\u{1B}b", "sk-a\u{85}b", "sk-a\u{2028}b"])
    func refused(_ key: String) throws {
        let problem = try #require(KeyText.problem(in: key))
        #expect(problem.contains("a key is one line of printable characters"))
        #expect(problem.contains("at character 5"))
        #expect(!problem.contains("sk-a"))
    }

    @Test("a key of printable characters, Unicode included, is accepted", arguments: ["sk-abc_123", "clé-ünïcode"])
    func accepted(_ key: String) {
        #expect(KeyText.problem(in: key) == nil)
    }

    @Test("a key another tool stored with a trailing newline is read without it; one of only white space is none")
    func readTrimmed() async throws {
        let secrets = MemorySecrets([SecretRef(.openai): "sk-shell\n", SecretRef(.google): " \n"])
        #expect(try await readSecret(secrets: secrets, ref: SecretRef(.openai)) == "sk-shell")
        #expect(try await readSecret(secrets: secrets, ref: SecretRef(.google)) == nil)
    }
}
