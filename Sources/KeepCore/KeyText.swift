import Foundation

/// The one rule for the text of an API key, wherever it comes from: typed into
/// `keep key set`, or stored by another tool (`secret-tool store` keeps the newline a
/// shell's `echo` adds).
///
/// A key is trimmed of white space and line breaks at both ends (``trimmed(_:)``), the
/// same on the way in and on the way out; what is left must hold no line break or other
/// control character (``problem(in:)``), which would end an HTTP header early.
public enum KeyText {
    /// `text` without white space and line breaks at either end.
    public static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Why the trimmed key `text` cannot be used, or `nil` when it can. Names the rule and
    /// the position, never the key.
    public static func problem(in text: String) -> String? {
        for (offset, scalar) in text.unicodeScalars.enumerated()
        where scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .lineSeparator
            || scalar.properties.generalCategory == .paragraphSeparator
        {
            let what = scalar == "\n" || scalar == "\r" ? "a line break" : "a control character"
            return "the key holds \(what) at character \(offset + 1); a key is one line of printable characters"
        }
        return nil
    }
}
