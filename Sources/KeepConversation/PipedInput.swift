/// Text piped into `keep ask` alongside a question (`cat notes.txt | keep ask "summarize"`),
/// and how the two are joined into the one question that is sent and kept.
///
/// The question comes first, then the piped text between two marker lines of their own, so
/// the model (and anyone reading the chat later) can tell where the text starts and ends:
///
/// ```
/// summarize
///
/// <stdin>
/// …the piped text…
/// </stdin>
/// ```
///
/// Piped text larger than ``limit`` is refused whole, never cut.
package enum PipedInput {
    /// The most bytes of standard input a question takes: 1 MiB, about 250,000 tokens of
    /// English, more than most models read at once.
    package static let limit = 1 << 20

    /// The line before the piped text.
    package static let opening = "<stdin>"
    /// The line after the piped text.
    package static let closing = "</stdin>"

    /// `question` with `piped` joined after it; `question` alone when `piped` is blank.
    /// Trailing newlines of `piped` are dropped (the closing marker ends its last line).
    package static func joined(question: String, piped: String) -> String {
        guard !piped.allSatisfy(\.isWhitespace) else { return question }
        var text = Substring(piped)
        while text.last?.isNewline == true { text = text.dropLast() }
        return "\(question)\n\n\(opening)\n\(text)\n\(closing)"
    }

    /// The line that refuses piped text of more than ``limit`` bytes.
    package static var tooLarge: String {
        "standard input holds more than \(limit >> 20) MiB; keep ask takes at most that much with a question "
            + "(send a part of it, such as `head -c 500000 FILE | keep ask ...`)"
    }
}
