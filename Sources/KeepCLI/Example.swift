/// One example of a command, for its help and the man page: what to type, and what it
/// does.
package struct Example: Sendable, Equatable {
    /// The command line, as typed: `keep ask "why is the sky blue?"`.
    package let command: String
    /// What it does, as a sentence.
    package let explanation: String

    package init(_ command: String, _ explanation: String) {
        self.command = command
        self.explanation = explanation
    }
}
