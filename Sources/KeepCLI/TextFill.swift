/// Text filled to a width, the way `keep`'s help is printed: at most ``TextFill/width``
/// columns, words never split.
///
/// Help is written as paragraphs whose line breaks fall where the source code wraps; this
/// refills them. A line that starts with a space is preformatted (a table, a command to
/// type) and stays as it is; every other run of lines is one paragraph, its words refilled;
/// a blank line stays a blank line.
package enum TextFill {
    /// The width help is filled to: a terminal's traditional 80 columns.
    package static let width = 80

    /// `text` with each paragraph refilled to `width` columns (see ``TextFill``); a word
    /// longer than a line stands alone on its line.
    package static func filled(_ text: String, width: Int = width) -> String {
        var lines: [String] = []
        var paragraph: [Substring] = []
        func flush() {
            if !paragraph.isEmpty { lines += wrapped(paragraph.joined(separator: " "), width: width) }
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.first == " " || line.allSatisfy(\.isWhitespace) {
                flush()
                lines.append(String(line.allSatisfy(\.isWhitespace) ? "" : line))
            } else {
                paragraph.append(line)
            }
        }
        flush()
        return lines.joined(separator: "\n")
    }

    /// One paragraph as lines of at most `width` columns.
    package static func wrapped(_ paragraph: String, width: Int = width) -> [String] {
        wrapped(words: paragraph.split(separator: " ").map(String.init), width: width)
    }

    /// `words` set one after another, a space between, in lines of at most `width` columns
    /// (a word that is longer stands alone). A word may hold spaces: a usage line's
    /// `[--chat ID]` is one.
    package static func wrapped(words: [String], width: Int = width) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in words {
            if line.isEmpty {
                line = word
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = word
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// Rows of two columns, as a command list or an option list shows them: each left cell
    /// padded to the widest (`indent` spaces before it, two after), each right cell filled
    /// to `width` under its column. When the left column would leave the right one less
    /// than half the width, a right cell starts on the next line instead, indented by
    /// `indent` and six more.
    package static func columns(_ rows: [(String, String)], indent: Int = 2, width: Int = width) -> [String] {
        let left = rows.map(\.0.count).max() ?? 0
        let column = indent + left + 2
        let lead = String(repeating: " ", count: indent)
        return rows.flatMap { cell, text -> [String] in
            let head = lead + cell
            guard !text.isEmpty else { return [head] }
            if column > width / 2 {
                return [head] + wrapped(text, width: width - indent - 6).map { lead + "      " + $0 }
            }
            let body = wrapped(text, width: width - column)
            let pad = String(repeating: " ", count: column - head.count)
            return [head + pad + body[0]] + body.dropFirst().map { String(repeating: " ", count: column) + $0 }
        }
    }
}
