/// keep's own words (its messages, its help tables) word-wrapped to a terminal's width.
///
/// Each line of the text is wrapped on its own, so a line break keep wrote stays one. A
/// wrapped line continues under its text: after the line's leading spaces, or, given a
/// `hang`, at that column (a help table's second column). Words are split at spaces only:
/// a word wider than the room left (a long path, an id) is printed whole on a line of its
/// own rather than cut. Widths are counted in terminal columns (wide and combining
/// characters as ``MarkdownRenderer`` counts them), and the text is taken as it is: text
/// from outside keep is neutralised before it is wrapped, never by this type.
package enum TextWrap {
    /// `text` with every line longer than `width` columns broken at spaces (see the type's
    /// contract); a `width` under 20 is taken as 20.
    package static func wrapped(_ text: String, width: Int, hang: Int? = nil) -> String {
        let width = max(width, 20)
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { wrappedLine($0, width: width, hang: hang) }
            .joined(separator: "\n")
    }

    private static func wrappedLine(_ line: Substring, width: Int, hang: Int?) -> String {
        guard MarkdownRenderer.displayWidth(String(line)) > width else { return String(line) }
        let indent = line.prefix(while: { $0 == " " })
        let continuation = String(repeating: " ", count: min(hang ?? indent.count, width / 2))
        var lines: [String] = []
        var current = String(indent)
        var column = indent.count
        var lineHasWord = false
        // Runs of spaces inside the line are kept as written (a table's padding) unless a
        // line breaks there.
        var pendingSpaces = 0
        var index = line.index(line.startIndex, offsetBy: indent.count)
        while index < line.endIndex {
            if line[index] == " " {
                pendingSpaces += 1
                index = line.index(after: index)
                continue
            }
            let end = line[index...].firstIndex(of: " ") ?? line.endIndex
            let word = String(line[index..<end])
            let shown = MarkdownRenderer.displayWidth(word)
            if lineHasWord && column + pendingSpaces + shown > width {
                lines.append(current)
                current = continuation
                column = continuation.count
            } else {
                current += String(repeating: " ", count: pendingSpaces)
                column += pendingSpaces
            }
            current += word
            column += shown
            lineHasWord = true
            pendingSpaces = 0
            index = end
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }
}
