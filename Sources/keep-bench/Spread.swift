/// The middle and the spread of one contender's samples: median, 10th and 90th
/// percentiles, and how many samples there were.
///
/// Percentiles interpolate linearly between the two nearest samples, so a small sample
/// count still gives a value between real observations. Values are in seconds per
/// operation.
struct Spread: Sendable, Codable, Equatable {
    let median: Double
    let p10: Double
    let p90: Double
    let samples: Int

    /// The spread of `values`; `nil` when there are none.
    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        median = Self.percentile(0.5, of: sorted)
        p10 = Self.percentile(0.1, of: sorted)
        p90 = Self.percentile(0.9, of: sorted)
        samples = sorted.count
    }

    /// The `fraction` percentile of `sorted` (ascending, not empty).
    private static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }
}
