/// An answer's Markdown made to read well on a terminal, piece by piece as it streams.
///
/// Every piece is first passed through ``TerminalText/neutralised(_:)``, so nothing a
/// server sends can control the terminal; only then are the renderer's own escape codes
/// added. The contract, for text fed in any split whatever:
/// - lines stay lines (a newline in the answer is a newline on the screen); long lines are
///   word-wrapped to ``width`` columns, a wrapped list item or quote continuing under its
///   text; a word wider than the screen is printed whole;
/// - `# Heading` lines lose their `#`s and show bold (levels 1 and 2 also underlined);
/// - `-`, `*` and `+` items show a bullet, numbered items their number;
/// - `> quote` lines show a dim bar;
/// - `**bold**`, `*italic*`, `_italic_`, `__bold__` and inline code (between backticks)
///   show as such, a marker counting only at the edge of a word (so `snake_case` and
///   `2 * 3` stay as they are); a backslash keeps the punctuation after it literal;
/// - a fenced code block (three backticks or `~~~`) is set apart: its fences dim, its
///   lines in colour and never wrapped or interpreted, wherever the pieces split it;
/// - a line of three or more `*`, `-` or `_` (spaces between allowed) is a rule across the
///   width, dim;
/// - a table (a `|` row, then a row of `---` cells, `:` marking the alignment, then more
///   `|` rows) is laid out in aligned columns, its cells' Markdown rendered and wrapped
///   within them, the header bold, so that it fits the width where it can; a `|` line that
///   turns out not to start a table is shown as text;
/// - every style is closed at the end of each line, so a stray marker never colours more.
///
/// A word is printed once the space after it has arrived (wrapping needs its width), and a
/// line's start is held until it shows what kind of line it is: the answer streams word by
/// word. A table is held until its last row (its columns need every row). ``finish()``
/// prints what is held when the answer ends. ``resize(to:)`` changes the width from the
/// next line on: what is printed stays as it was.
package struct MarkdownRenderer: Sendable {
    /// The escape codes the renderer adds: Select Graphic Rendition, nothing else.
    enum SGR {
        static let reset = "\u{1B}[0m"
        static let bold = "1"
        static let dim = "2"
        static let italic = "3"
        static let underline = "4"
        static let code = "36"
    }

    private enum Block: Equatable {
        case paragraph, heading(level: Int), quote
    }

    /// The terminal's width in columns.
    package private(set) var width: Int
    /// A width asked for by ``resize(to:)``, taken at the next line's start.
    private var nextWidth: Int?
    /// Whether every line is a paragraph (a table's cell: no headings, lists, fences).
    private var inlineOnly = false
    /// A table's lines as they came: the header, then (once ``tableConfirmed``) the
    /// delimiter row and the body rows.
    private var table: [String] = []
    private var tableConfirmed = false

    /// The current line's text while its kind is not known yet.
    private var lineStart = ""
    private var lineKnown = false
    private var block = Block.paragraph
    /// The fence a code block was opened with (```` ``` ```` or `~~~`, as long as it was).
    private var fence: String?
    /// Inside a code block: whether this line was found not to be the closing fence.
    private var codeLineOpen = false

    /// The word being read, not yet printed.
    private var word = ""
    private var spaceBefore = false
    /// The column the cursor is at, and what a wrapped line starts with.
    private var column = 0
    private var continuation = ""
    private var continuationWidth = 0

    private var bold = false
    private var italic = false
    private var codeRun = 0
    /// Whether an escape code of ours is in effect on this line.
    private var styled = false

    /// A renderer for a terminal `width` columns wide; narrower than 20 is taken as 20.
    package init(width: Int) {
        self.width = max(width, 20)
    }

    /// A renderer of one table cell: `width` columns (however narrow), inline Markdown only.
    private init(cell width: Int) {
        self.width = max(width, 1)
        inlineOnly = true
    }

    /// Lays out the lines from the next one on at `columns` (a window resized); a width
    /// under 20 is taken as 20. What was printed stays; a line being printed keeps its width.
    package mutating func resize(to columns: Int) {
        nextWidth = max(columns, 20)
    }

    /// The terminal text for `piece`, the next part of the answer.
    package mutating func feed(_ piece: String) -> String {
        var out = ""
        for character in TerminalText.neutralised(piece) { take(character, into: &out) }
        return out
    }

    /// What is still held, printed as the answer ends; styles closed.
    package mutating func finish() -> String {
        var out = ""
        if fence == nil, !lineKnown, !table.isEmpty, Self.isTableRow(lineStart) {
            take("\n", into: &out)
        }
        if fence == nil, !table.isEmpty { flushTable(into: &out) }
        if fence != nil {
            if !codeLineOpen && !lineStart.isEmpty { startCodeLine(into: &out) }
            out += lineStart
            lineStart = ""
        } else {
            if !lineKnown && !lineStart.isEmpty { decide(into: &out) }
            flushWord(into: &out)
        }
        if styled { out += SGR.reset }
        styled = false
        return out
    }

    // MARK: - Lines

    private mutating func take(_ character: Character, into out: inout String) {
        if fence != nil {
            takeCode(character, into: &out)
        } else if !lineKnown {
            if character == "\n" {
                let line = lineStart
                if !inlineOnly, takeTableLine(line, into: &out) { return }
                if !inlineOnly, let opened = Self.fenceOpening(line) {
                    out += Self.sgr([SGR.dim]) + line + SGR.reset + "\n"
                    fence = opened
                    lineStart = ""
                    codeLineOpen = false
                    return
                }
                decide(into: &out)
                endLine(into: &out)
            } else {
                lineStart.append(character)
                if inlineOnly || Self.kindIsKnown(lineStart) {
                    if !table.isEmpty { flushTable(into: &out) }
                    decide(into: &out)
                }
            }
        } else if character == "\n" {
            endLine(into: &out)
        } else {
            takeInline(character, into: &out)
        }
    }

    /// Decides what kind of line ``lineStart`` begins, prints its marker and feeds the
    /// rest of it as text.
    private mutating func decide(into out: inout String) {
        takeNextWidth()
        let line = lineStart
        lineStart = ""
        lineKnown = true
        block = .paragraph
        let indent = String(line.prefix(while: { $0 == " " }))
        let body = line.dropFirst(indent.count)
        var rest = Substring(body)
        if inlineOnly {
            column = 0
            continuation = ""
            continuationWidth = 0
            for character in line { takeInline(character, into: &out) }
            return
        }
        if Self.isRule(line) {
            // Printed whole now: the newline that ends it is printed by endLine.
            out += Self.sgr([SGR.dim]) + String(repeating: "─", count: width) + SGR.reset
            column = width
            return
        }
        if let hashes = Self.headingLevel(body) {
            block = .heading(level: hashes)
            rest = body.dropFirst(hashes).drop(while: { $0 == " " })
        } else if let marker = Self.listMarker(body) {
            let shown = marker.first.map { "-*+".contains($0) } == true ? "•" : marker
            out += indent + shown + " "
            column = indent.count + Self.displayWidth(shown) + 1
            continuation = String(repeating: " ", count: column)
            continuationWidth = column
            rest = body.dropFirst(marker.count).drop(while: { $0 == " " })
        } else if body.hasPrefix(">") {
            block = .quote
            continuation = indent + Self.sgr([SGR.dim]) + "│" + SGR.reset + " "
            continuationWidth = indent.count + 2
            out += continuation
            column = continuationWidth
            rest = body.dropFirst().drop(while: { $0 == " " })
        } else {
            out += indent
            column = indent.count
            continuation = indent
            continuationWidth = indent.count
        }
        if case .heading(let level) = block {
            out += Self.sgr(level <= 2 ? [SGR.bold, SGR.underline] : [SGR.bold])
            styled = true
        }
        for character in rest { takeInline(character, into: &out) }
    }

    private mutating func endLine(into out: inout String) {
        flushWord(into: &out)
        if styled { out += SGR.reset }
        out += "\n"
        styled = false
        bold = false
        italic = false
        codeRun = 0
        lineKnown = false
        block = .paragraph
        column = 0
        spaceBefore = false
        continuation = ""
        continuationWidth = 0
    }

    // MARK: - Tables

    /// Holds `line` when it is a table's row; whether it did. A line that is not one prints
    /// the table held before it, if any, and is left to the caller.
    private mutating func takeTableLine(_ line: String, into out: inout String) -> Bool {
        guard Self.isTableRow(line) else {
            if !table.isEmpty { flushTable(into: &out) }
            return false
        }
        lineStart = ""
        if table.isEmpty {
            table = [line]
        } else if tableConfirmed {
            table.append(line)
        } else if Self.isDelimiterRow(line) {
            table.append(line)
            tableConfirmed = true
        } else {
            // The line held was text after all; this one may start a table of its own.
            flushTable(into: &out)
            table = [line]
        }
        return true
    }

    /// Prints the table held: laid out when it is one, else its line as text. The line
    /// being read (``lineStart``) is left as it was.
    private mutating func flushTable(into out: inout String) {
        let lines = table
        let confirmed = tableConfirmed
        let reading = lineStart
        table = []
        tableConfirmed = false
        defer { lineStart = reading }
        guard confirmed else {
            for line in lines {
                lineStart = line
                decide(into: &out)
                endLine(into: &out)
            }
            return
        }
        takeNextWidth()
        out += Self.layOut(table: lines, width: width)
    }

    /// The width ``resize(to:)`` asked for, taken now that a line starts.
    private mutating func takeNextWidth() {
        guard let nextWidth else { return }
        width = nextWidth
        self.nextWidth = nil
    }

    /// How a column's cells sit in it.
    private enum Alignment { case left, center, right }

    /// Whether `line` is a table's row: a `|` after at most three spaces.
    static func isTableRow(_ line: String) -> Bool {
        let body = line.drop(while: { $0 == " " })
        return line.count - body.count <= 3 && body.first == "|"
    }

    /// Whether `line` is the row under a table's header: cells of `-`, each with an
    /// optional `:` at either end.
    static func isDelimiterRow(_ line: String) -> Bool {
        let cells = cells(of: line)
        return !cells.isEmpty
            && cells.allSatisfy { cell in
                let inner = cell.drop(while: { $0 == ":" }).reversed().drop(while: { $0 == ":" })
                return !inner.isEmpty && inner.allSatisfy { $0 == "-" } && cell.count - inner.count <= 2
            }
    }

    /// The cells of a table row, trimmed: split at each `|` that no backslash escapes.
    static func cells(of line: String) -> [String] {
        var body = Substring(line.drop(while: { $0 == " " }))
        if body.first == "|" { body = body.dropFirst() }
        var cells: [String] = []
        var cell = ""
        var escaped = false
        for character in body {
            if escaped {
                cell.append(character == "|" ? "|" : "\\")
                if character != "|" { cell.append(character) }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(cell)
                cell = ""
            } else {
                cell.append(character)
            }
        }
        if escaped { cell.append("\\") }
        if !cell.allSatisfy(\.isWhitespace) { cells.append(cell) }
        return cells.map { $0.trimmingSpaces }
    }

    /// A table's lines (header, delimiter row, body rows) laid out at most `width` columns
    /// wide where its cells allow: columns as wide as their widest cell, the widest narrowed
    /// (its cells wrapped) while the table is too wide, a column never narrower than a word
    /// it holds.
    private static func layOut(table lines: [String], width: Int) -> String {
        let header = cells(of: lines[0])
        let count = header.count
        let alignments = cells(of: lines[1]).map(alignment) + Array(repeating: .left, count: count)
        let rows = ([header] + lines.dropFirst(2).map { cells(of: $0) }).map { row in
            Array((row + Array(repeating: "", count: count)).prefix(count))
        }
        var widths = (0..<count).map { column in
            rows.indices.map { visibleWidth(renderCell(rows[$0][column], width: 10_000, bold: $0 == 0)[0]) }.max() ?? 0
        }
        let room = width - 3 * (count - 1)
        while widths.reduce(0, +) > room, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
            widths[widest] > 6
        {
            widths[widest] -= 1
        }
        let rendered = rows.indices.map { row in
            (0..<count).map { renderCell(rows[row][$0], width: widths[$0], bold: row == 0) }
        }
        for column in 0..<count {
            widths[column] = max(widths[column], rendered.map { $0[column].map(visibleWidth).max() ?? 0 }.max() ?? 0)
        }
        let bar = sgr([SGR.dim]) + "│" + SGR.reset
        var out = ""
        for (index, cellLines) in rendered.enumerated() {
            for line in 0..<(cellLines.map(\.count).max() ?? 1) {
                let parts = (0..<count).map { column in
                    padded(
                        line < cellLines[column].count ? cellLines[column][line] : "", to: widths[column],
                        alignments[column], last: column == count - 1)
                }
                out += parts.joined(separator: " " + bar + " ") + "\n"
            }
            if index == 0 {
                out +=
                    sgr([SGR.dim]) + widths.map { String(repeating: "─", count: $0) }.joined(separator: "─┼─")
                    + SGR.reset + "\n"
            }
        }
        return out
    }

    private static func alignment(_ delimiter: String) -> Alignment {
        switch (delimiter.hasPrefix(":"), delimiter.hasSuffix(":")) {
        case (true, true): .center
        case (false, true): .right
        default: .left
        }
    }

    /// A cell's Markdown, rendered and wrapped to `width`, one string a line.
    private static func renderCell(_ text: String, width: Int, bold: Bool) -> [String] {
        var renderer = MarkdownRenderer(cell: width)
        var out = ""
        if bold {
            renderer.bold = true
            renderer.styled = true
            out = sgr([SGR.bold])
        }
        out += renderer.feed(text) + renderer.finish()
        return out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private static func padded(_ text: String, to width: Int, _ alignment: Alignment, last: Bool) -> String {
        let room = max(0, width - visibleWidth(text))
        switch alignment {
        case .left: return last ? text : text + String(repeating: " ", count: room)
        case .right: return String(repeating: " ", count: room) + text
        case .center:
            let before = room / 2
            return String(repeating: " ", count: before) + text
                + (last ? "" : String(repeating: " ", count: room - before))
        }
    }

    /// The columns `text` takes, the renderer's own escape codes (SGR, ending in `m`) not
    /// counted: text from outside has none left, neutralised before it came here.
    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inCode = false
        for character in text {
            if inCode {
                if character == "m" { inCode = false }
            } else if character == "\u{1B}" {
                inCode = true
            } else {
                width += displayWidth(character)
            }
        }
        return width
    }

    // MARK: - Code blocks

    private mutating func takeCode(_ character: Character, into out: inout String) {
        if codeLineOpen {
            if character == "\n" {
                out += SGR.reset + "\n"
                codeLineOpen = false
                styled = false
            } else {
                out.append(character)
            }
            return
        }
        if character == "\n" {
            let line = lineStart
            lineStart = ""
            if let fence, Self.closes(line, fence: fence) {
                out += Self.sgr([SGR.dim]) + line + SGR.reset + "\n"
                self.fence = nil
            } else {
                out += Self.sgr([SGR.code]) + line + SGR.reset + "\n"
            }
            return
        }
        lineStart.append(character)
        if let fence, !Self.mayClose(lineStart, fence: fence) { startCodeLine(into: &out) }
    }

    private mutating func startCodeLine(into out: inout String) {
        out += style(SGR.code) + lineStart
        lineStart = ""
        codeLineOpen = true
    }

    // MARK: - Words

    private mutating func takeInline(_ character: Character, into out: inout String) {
        if character == " " || character == "\t" {
            flushWord(into: &out)
            spaceBefore = true
        } else {
            word.append(character)
        }
    }

    /// Prints the word read so far, on a new line when it would pass the width.
    private mutating func flushWord(into out: inout String) {
        guard !word.isEmpty else { return }
        let (text, shown) = renderWord(word)
        word = ""
        let space = spaceBefore && column > continuationWidth ? 1 : 0
        if column > continuationWidth && column + space + shown > width {
            out += (styled ? SGR.reset : "") + "\n" + continuation + currentStyle()
            column = continuationWidth
        } else if space == 1 {
            out += " "
            column += 1
        }
        spaceBefore = false
        out += text
        column += shown
    }

    /// A word with its emphasis markers turned into styles, and the columns it takes.
    private mutating func renderWord(_ word: String) -> (String, Int) {
        let characters = Array(word)
        var out = ""
        var shown = 0
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count, codeRun == 0,
                characters[index + 1].isASCII, characters[index + 1].isPunctuation || characters[index + 1].isSymbol
            {
                out.append(characters[index + 1])
                shown += 1
                index += 2
                continue
            }
            guard "`*_".contains(character) else {
                out.append(character)
                shown += Self.displayWidth(character)
                index += 1
                continue
            }
            var end = index
            while end < characters.count, characters[end] == character { end += 1 }
            let run = end - index
            let marker = String(characters[index..<end])
            defer { index = end }
            if character == "`" {
                if codeRun == 0 {
                    codeRun = run
                    out += restyle()
                } else if run == codeRun {
                    codeRun = 0
                    out += restyle()
                } else {
                    out += marker
                    shown += run
                }
                continue
            }
            let atStart = characters[..<index].allSatisfy { "([{\"'*_`".contains($0) }
            let atEnd = characters[end...].allSatisfy { ".,;:!?)]}\"'*_`".contains($0) }
            let alone = characters.count == run
            guard codeRun == 0, !alone || run > 1, run <= 3 else {
                out += marker
                shown += run
                continue
            }
            let wantsBold = run >= 2
            let wantsItalic = run != 2
            let isOn = (wantsBold ? bold : true) && (wantsItalic ? italic : true)
            // A marker closes at the end of a word and opens at its start.
            if (isOn && atEnd) || (!isOn && atStart) {
                if wantsBold { bold = !isOn }
                if wantsItalic { italic = !isOn }
                out += restyle()
            } else {
                out += marker
                shown += run
            }
        }
        return (out, shown)
    }

    // MARK: - Styles

    /// The codes for the inline styles in effect, after a reset.
    private mutating func restyle() -> String {
        let codes = styleCodes()
        styled = !codes.isEmpty
        return SGR.reset + (codes.isEmpty ? "" : Self.sgr(codes))
    }

    private func currentStyle() -> String {
        let codes = styleCodes()
        return codes.isEmpty ? "" : Self.sgr(codes)
    }

    private func styleCodes() -> [String] {
        var codes: [String] = []
        if case .heading(let level) = block {
            codes += level <= 2 ? [SGR.bold, SGR.underline] : [SGR.bold]
        }
        if bold && !codes.contains(SGR.bold) { codes.append(SGR.bold) }
        if italic { codes.append(SGR.italic) }
        if codeRun > 0 { codes.append(SGR.code) }
        return codes
    }

    private mutating func style(_ code: String) -> String {
        styled = true
        return Self.sgr([code])
    }

    static func sgr(_ codes: [String]) -> String {
        "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    // MARK: - Kinds of line

    /// Whether `start`, the first characters of a line, already shows what kind of line it
    /// is (a fence needs its whole line, for its closing rule and its info string).
    static func kindIsKnown(_ start: String) -> Bool {
        let body = start.drop(while: { $0 == " " })
        guard let first = body.first else { return false }
        switch first {
        case "`", "~":
            return body.count >= 3 && !body.hasPrefix("```") && !body.hasPrefix("~~~")
        case "#":
            return body.contains(where: { $0 != "#" })
        case "-", "*":
            // `---` or `* * *` may yet be a rule: known once something else comes.
            return body.count >= 2 && !body.allSatisfy({ $0 == first || $0 == " " })
        case "+":
            return body.count >= 2
        case "_":
            return !body.allSatisfy({ $0 == first || $0 == " " })
        case "|":
            // A table's row, or text: known at the line's end.
            return false
        case "0"..."9":
            let after = body.drop(while: { $0.isASCII && $0.isNumber })
            guard let next = after.first else { return false }
            return next == "." || next == ")" ? after.count >= 2 : true
        default:
            return true
        }
    }

    /// Whether `line` is a thematic break: three or more of one of `*`, `-`, `_`, spaces
    /// between them allowed, after at most three spaces.
    static func isRule(_ line: String) -> Bool {
        let body = line.drop(while: { $0 == " " })
        guard line.count - body.count <= 3, let mark = body.first, "*-_".contains(mark) else { return false }
        return body.allSatisfy({ $0 == mark || $0 == " " }) && body.count(where: { $0 == mark }) >= 3
    }

    static func headingLevel(_ body: Substring) -> Int? {
        let hashes = body.prefix(while: { $0 == "#" }).count
        guard (1...6).contains(hashes) else { return nil }
        let after = body.dropFirst(hashes)
        return after.isEmpty || after.first == " " ? hashes : nil
    }

    /// The list marker `body` starts with (`-`, `*`, `+`, `12.`, `3)`), followed by a space.
    static func listMarker(_ body: Substring) -> String? {
        if let first = body.first, "-*+".contains(first), body.dropFirst().first == " " {
            return String(first)
        }
        let digits = body.prefix(while: { $0.isASCII && $0.isNumber })
        guard (1...9).contains(digits.count) else { return nil }
        let after = body.dropFirst(digits.count)
        guard let dot = after.first, dot == "." || dot == ")", after.dropFirst().first == " " else { return nil }
        return String(digits) + String(dot)
    }

    /// The fence `line` opens a code block with, if it does: three or more backticks or tildes.
    static func fenceOpening(_ line: String) -> String? {
        let body = line.drop(while: { $0 == " " })
        guard line.count - body.count <= 3, let mark = body.first, mark == "`" || mark == "~" else { return nil }
        let run = body.prefix(while: { $0 == mark })
        guard run.count >= 3 else { return nil }
        if mark == "`" && body.dropFirst(run.count).contains("`") { return nil }
        return String(run)
    }

    static func closes(_ line: String, fence: String) -> Bool {
        let body = line.drop(while: { $0 == " " })
        guard line.count - body.count <= 3, let mark = fence.first else { return false }
        let run = body.prefix(while: { $0 == mark })
        return run.count >= fence.count && body.dropFirst(run.count).allSatisfy(\.isWhitespace)
    }

    /// Whether a code line that starts with `start` could still turn out to close `fence`.
    static func mayClose(_ start: String, fence: String) -> Bool {
        let body = start.drop(while: { $0 == " " })
        guard start.count - body.count <= 3, let mark = fence.first else { return false }
        let run = body.prefix(while: { $0 == mark })
        if run.count == body.count { return true }
        return run.count >= fence.count && body.dropFirst(run.count).allSatisfy(\.isWhitespace)
    }

    // MARK: - Width

    /// The columns `character` takes on a terminal: 2 for East Asian wide and emoji, 0 for
    /// a combining mark alone, else 1.
    static func displayWidth(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count == 1, scalar.properties.generalCategory == .nonspacingMark { return 0 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { $0 + displayWidth($1) }
    }
}

extension String {
    /// The text without the spaces at either end.
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
