import Testing

@testable import keep_bench

/// How figures are written: the same text whatever the locale, in a unit that fits.
@Suite("keep-bench's figures")
struct FormatTests {
    @Test(
        "a duration is written to three significant digits in a unit that fits",
        arguments: [
            (4.2e-7, "420 ns"), (4.213e-6, "4.21 µs"), (2.38e-3, "2.38 ms"), (0.0421, "42.1 ms"), (1.625, "1.62 s"),
            (1e-3, "1.00 ms"),
        ])
    func durations(_ seconds: Double, _ text: String) {
        #expect(Format.duration(seconds) == text)
    }

    @Test(
        "a count groups its thousands with commas",
        arguments: [(0, "0"), (999, "999"), (1_000, "1,000"), (100_000, "100,000"), (1_234_567, "1,234,567")])
    func counts(_ count: Int, _ text: String) {
        #expect(Format.count(count) == text)
    }

    @Test(
        "a ratio has two decimals, and none from 100× up",
        arguments: [(1.0, "1.00×"), (1.149, "1.15×"), (2235.4, "2,235×")])
    func ratios(_ ratio: Double, _ text: String) {
        #expect(Format.ratio(ratio) == text)
    }

    @Test(
        "the chart labels each decade of its time axis plainly",
        arguments: [(1e-6, "1 µs"), (1e-4, "100 µs"), (1e-3, "1 ms"), (0.1, "100 ms"), (1.0, "1 s"), (10.0, "10 s")])
    func decades(_ seconds: Double, _ text: String) {
        #expect(ScalingChart.tick(seconds) == text)
    }
}
