/// The part of a Markdown document that `keep-bench --update` owns: the lines between
/// ``begin`` and ``end``, which a run's report replaces whole, so the tables a document
/// shows are the ones a run printed, never pasted by hand.
///
/// The report's headings are moved under the document's: a report heading of level *n*
/// becomes level *n + d*, where *d* is the level of the last heading before ``begin``.
/// Everything outside the markers is kept byte for byte.
enum MarkedRegion {
    /// The line that opens the region.
    static let begin = "<!-- keep-bench tables: begin -->"
    /// The line that closes the region.
    static let end = "<!-- keep-bench tables: end -->"

    /// `document` with its region replaced by `report`. A document without exactly one
    /// ``begin`` followed by exactly one ``end`` is a usage error naming `path`.
    static func replacing(in document: String, with report: String, path: String) throws(BenchError) -> String {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        let begins = lines.indices.filter { lines[$0] == begin }
        let ends = lines.indices.filter { lines[$0] == end }
        guard begins.count == 1, ends.count == 1, let open = begins.first, let close = ends.first, open < close else {
            throw .usage(
                "--update", "\(path) needs one line \(begin) and, after it, one line \(end) around the tables")
        }
        let depth = lines[..<open].last { $0.hasPrefix("#") }.map { $0.prefix { $0 == "#" }.count } ?? 0
        let shifted = report.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") ? String(repeating: "#", count: depth) + line : String(line)
        }
        let body = shifted.last == "" ? shifted.dropLast() : shifted[...]
        return (lines[...open].map(String.init) + [""] + body + [""] + lines[close...].map(String.init))
            .joined(separator: "\n")
    }
}
