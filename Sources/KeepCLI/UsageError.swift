/// A command line that does not fit its command: an unknown option, a missing or extra
/// argument, a value where none is taken. `keep` prints it with the command's usage line
/// and exits 2.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one line: `unknown option --colour`.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
