/// The fenced code blocks of an answer, for `keep ask -x`: what scripts want of an answer
/// that explains its code around it.
///
/// A fence is a line of three or more backticks or tildes, indented by at most three spaces,
/// and an info string after it (`swift`) is dropped; the block ends at a fence of the same
/// character at least as long, or at the end of the answer (a block cut off still counts).
/// Indentation the opening fence had is taken off the block's lines, as Markdown does.
package enum CodeBlocks {
    /// Each block's text, in order, each ending with a newline.
    package static func extract(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var open: (mark: Character, length: Int, indent: Int)?
        var lines: [Substring] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            let fence = rest.first.flatMap { mark in
                mark == "`" || mark == "~" ? (mark, rest.prefix { $0 == mark }.count) : nil
            }
            if let current = open {
                if indent <= 3, let (mark, length) = fence, mark == current.mark, length >= current.length,
                    rest.dropFirst(length).allSatisfy(\.isWhitespace)
                {
                    blocks.append(lines.map { $0 + "\n" }.joined())
                    open = nil
                    lines = []
                } else {
                    lines.append(line.dropFirst(min(current.indent, indent)))
                }
            } else if indent <= 3, let (mark, length) = fence, length >= 3,
                mark == "~" || !rest.dropFirst(length).contains("`")
            {
                open = (mark, length, indent)
            }
        }
        if open != nil { blocks.append(lines.map { $0 + "\n" }.joined()) }
        return blocks
    }
}
