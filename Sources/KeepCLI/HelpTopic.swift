/// A subject `keep help TOPIC` explains that is not one command (the files keep makes, the
/// environment it reads), and a section of the man page.
package struct HelpTopic: Sendable {
    /// The word that names it: `files`.
    package let name: String
    /// One line for the topic list.
    package let summary: String
    /// The man page's heading for it: `FILES`.
    package let heading: String
    /// The text, as paragraphs ``TextFill`` fills.
    package let text: String

    package init(_ name: String, heading: String, summary: String, text: String) {
        self.name = name
        self.heading = heading
        self.summary = summary
        self.text = text
    }
}
