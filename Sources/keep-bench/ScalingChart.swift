import Foundation

/// The scaling scenario as an SVG line chart, written by hand: keys already in the
/// namespace across (log scale), median time per write up (log scale), a whisker from
/// p10 to p90 at each point, one line per store.
enum ScalingChart {
    /// One line of the chart: a store's rows, in count order.
    struct Series {
        let name: String
        let colour: String
        let points: [(count: Int, spread: Spread)]
    }

    /// The series the scaling scenario's comparisons hold, or none when it did not run.
    static func series(in report: BenchReport) -> [Series] {
        let comparisons = report.scenarios.first { $0.id == .scaling }?.comparisons ?? []
        let styles = [
            ScalingScenario.fileStoreTitle: ("file store", "#1f77b4"),
            ScalingScenario.blobStoreTitle: ("whole-blob store", "#d62728"),
        ]
        return comparisons.compactMap { comparison in
            guard let (name, colour) = styles[comparison.title] else { return nil }
            let points = comparison.rows.compactMap { row in row.count.map { (count: $0, spread: row.seconds) } }
            return points.isEmpty
                ? nil : Series(name: name, colour: colour, points: points.sorted { $0.count < $1.count })
        }
    }

    /// The history scenario's series: listing and searching by chat count, each contender
    /// (the whole `keep` process aside) one line.
    static func historySeries(in report: BenchReport) -> [Series] {
        // The warm tables of realistic chats: one point per count for each row.
        let comparisons = (report.scenarios.first { $0.id == .history }?.comparisons ?? []).filter {
            $0.title.hasSuffix(" realistic chats, warm") && !$0.title.contains("sealed")
        }
        let styles: [(row: String, name: String, colour: String)] = [
            (HistoryScenario.rawList, "list: raw read of every file", "#7f7f7f"),
            (HistoryScenario.indexList, "list: chat index", "#1f77b4"),
            (HistoryScenario.fullList, "list: every chat decoded", "#d62728"),
            (HistoryScenario.grep, "search: grep -rli", "#bcbd22"),
            (HistoryScenario.indexSearch, "search: chat index", "#2ca02c"),
            (HistoryScenario.fullSearch, "search: every chat decoded", "#9467bd"),
        ]
        return styles.compactMap { style in
            let points = comparisons.compactMap { comparison in
                comparison.row(style.row).flatMap { row in row.count.map { (count: $0, spread: row.seconds) } }
            }
            return points.isEmpty
                ? nil : Series(name: style.name, colour: style.colour, points: points.sorted { $0.count < $1.count })
        }
    }

    /// Where the history chart goes, beside the scaling chart at `path`.
    static func historyPath(beside path: String) -> String {
        let base = path.hasSuffix(".svg") ? String(path.dropLast(4)) : path
        return (base.hasSuffix("-scaling") ? String(base.dropLast(8)) : base) + "-history.svg"
    }

    /// What a chart says on its axes and above them.
    struct Labels {
        let title: String
        let counts: String
        let times: String
        let unit: String

        static let scaling = Labels(
            title: "Writing one 1 KiB key, by keys already in the namespace",
            counts: "keys already in the namespace (log scale)",
            times: "median time per durable write (log scale)", unit: "keys")
        static let history = Labels(
            title: "Listing and searching the chats, by chats stored", counts: "chats stored (log scale)",
            times: "median time per listing or search (log scale)", unit: "chats")
    }

    /// The chart's SVG text, labelled with the run's machine and date.
    static func svg(_ series: [Series], caption: String, labels: Labels = .scaling) -> String {
        let width = 760.0
        let height = 460.0
        let left = 90.0
        let right = 200.0
        let top = 56.0
        let bottom = 64.0
        let counts = series.flatMap { $0.points.map { Double($0.count) } }
        let times = series.flatMap { $0.points.flatMap { [$0.spread.p10, $0.spread.p90] } }.filter { $0 > 0 }
        guard let fewest = counts.min(), let most = counts.max(), let fastest = times.min(), let slowest = times.max()
        else { return "" }
        let xLow = log10(fewest) - 0.25
        let xHigh = log10(most) + 0.25
        let yLow = log10(fastest).rounded(.down)
        let yHigh = max(log10(slowest).rounded(.up), yLow + 1)
        func x(_ count: Double) -> Double { left + (log10(count) - xLow) / (xHigh - xLow) * (width - left - right) }
        func y(_ seconds: Double) -> Double {
            top + (yHigh - log10(seconds)) / (yHigh - yLow) * (height - top - bottom)
        }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }

        var svg = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            "<text x=\"\(number(left))\" y=\"24\" font-size=\"15\" font-weight=\"bold\">\(escaped(labels.title))</text>",
            "<text x=\"\(number(left))\" y=\"42\" fill=\"#555\">\(escaped(caption))</text>",
        ]
        // Decade grid lines and labels on the time axis.
        for decade in Int(yLow)...Int(yHigh) {
            let seconds = pow(10, Double(decade))
            let at = number(y(seconds))
            svg.append(
                "<line x1=\"\(number(left))\" y1=\"\(at)\" x2=\"\(number(width - right))\" y2=\"\(at)\" stroke=\"#ddd\"/>"
            )
            svg.append(
                "<text x=\"\(number(left - 8))\" y=\"\(at)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(escaped(tick(seconds)))</text>"
            )
        }
        // One tick per measured count on the keys axis.
        for count in Set(counts).sorted() {
            let at = number(x(count))
            svg.append(
                "<line x1=\"\(at)\" y1=\"\(number(top))\" x2=\"\(at)\" y2=\"\(number(height - bottom))\" stroke=\"#eee\"/>"
            )
            svg.append(
                "<text x=\"\(at)\" y=\"\(number(height - bottom + 18))\" text-anchor=\"middle\">\(Format.count(Int(count)))</text>"
            )
        }
        svg += [
            "<line x1=\"\(number(left))\" y1=\"\(number(height - bottom))\" x2=\"\(number(width - right))\" y2=\"\(number(height - bottom))\" stroke=\"#333\"/>",
            "<line x1=\"\(number(left))\" y1=\"\(number(top))\" x2=\"\(number(left))\" y2=\"\(number(height - bottom))\" stroke=\"#333\"/>",
            "<text x=\"\(number((left + width - right) / 2))\" y=\"\(number(height - 18))\" text-anchor=\"middle\">\(escaped(labels.counts))</text>",
            "<text transform=\"translate(18 \(number((top + height - bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">\(escaped(labels.times))</text>",
        ]
        for (index, line) in series.enumerated() {
            let path = line.points.map { "\(number(x(Double($0.count)))),\(number(y($0.spread.median)))" }
            svg.append(
                "<polyline fill=\"none\" stroke=\"\(line.colour)\" stroke-width=\"2\" points=\"\(path.joined(separator: " "))\"/>"
            )
            for point in line.points {
                let at = number(x(Double(point.count)))
                svg.append(
                    "<line x1=\"\(at)\" y1=\"\(number(y(point.spread.p10)))\" x2=\"\(at)\" y2=\"\(number(y(point.spread.p90)))\" stroke=\"\(line.colour)\"/>"
                )
                svg.append(
                    "<circle cx=\"\(at)\" cy=\"\(number(y(point.spread.median)))\" r=\"4\" fill=\"\(line.colour)\"><title>\(escaped("\(line.name), \(Format.count(point.count)) \(labels.unit): \(Format.duration(point.spread.median))"))</title></circle>"
                )
            }
            let legendY = number(top + 20 + Double(index) * 22)
            let legendX = width - right + 20
            svg.append(
                "<line x1=\"\(number(legendX))\" y1=\"\(legendY)\" x2=\"\(number(legendX + 24))\" y2=\"\(legendY)\" stroke=\"\(line.colour)\" stroke-width=\"2\"/>"
            )
            svg.append(
                "<text x=\"\(number(legendX + 30))\" y=\"\(legendY)\" dominant-baseline=\"middle\">\(escaped(line.name))</text>"
            )
        }
        svg.append(
            "<text x=\"\(number(width - right + 20))\" y=\"\(number(top + 20 + Double(series.count) * 22 + 8))\" fill=\"#555\">whiskers: p10 to p90</text>"
        )
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// A decade's label: `100 µs`, `1 ms`, `10 s`.
    static func tick(_ seconds: Double) -> String {
        let (value, unit): (Double, String) =
            switch seconds {
            case ..<0.999e-6: (seconds * 1e9, "ns")
            case ..<0.999e-3: (seconds * 1e6, "µs")
            case ..<0.999: (seconds * 1e3, "ms")
            default: (seconds, "s")
            }
        return "\(Int(value.rounded())) \(unit)"
    }

    /// `text` safe inside an SVG element.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
