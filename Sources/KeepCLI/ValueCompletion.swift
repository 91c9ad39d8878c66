/// What a shell completes for a value a command takes (an option's value, a positional).
package enum ValueCompletion: Sendable, Equatable {
    /// Nothing: the value is the user's own (a question, a title, a number).
    case none
    /// One of these words.
    case words([String])
    /// A file name.
    case files
    /// The lines `keep` prints when run with these arguments at completion time (the chat
    /// ids), standard error discarded.
    case keepOutput([String])

    /// What a placeholder offers by its spelling alone: the lowercase alternatives of a
    /// placeholder such as `markdown|json` or `DAYS|forever`, else nothing.
    package static func spelled(_ placeholder: String) -> ValueCompletion {
        let words = placeholder.split(separator: "|").map(String.init).filter { $0 == $0.lowercased() }
        return placeholder.contains("|") && !words.isEmpty ? .words(words) : .none
    }
}
