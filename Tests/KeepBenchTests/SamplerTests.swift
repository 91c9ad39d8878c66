import Synchronization
import Testing

@testable import keep_bench

/// How samples are taken and summarised: interleaved, warmed up, bounded where asked.
@Suite("keep-bench's sampler")
struct SamplerTests {
    @Test("contenders are sampled interleaved, once each per round, in an order shuffled afresh each round")
    func contendersAreInterleaved() async throws {
        let calls = Mutex<[String]>([])
        let names = ["A", "B", "C", "D"]
        let contenders = names.map { name in Contender(name) { calls.withLock { $0.append(name) } } }
        var scale = Scale.quick
        scale.warmUp = 2
        scale.repetitions = 10
        let samples = try await Sampler.run(contenders, scale: scale)
        let rounds = stride(from: 0, to: 48, by: 4).map { Array(calls.withLock { $0 }[$0..<$0 + 4]) }
        #expect(calls.withLock { $0.count } == 48)
        #expect(rounds.allSatisfy { $0.sorted() == names }, "a round ran someone twice: \(rounds)")
        // Not one fixed order, nor one rotated: each contender follows more than one other.
        let predecessors = Dictionary(grouping: rounds.flatMap { zip($0, $0.dropFirst()) }, by: \.1)
        #expect(predecessors.values.allSatisfy { Set($0.map(\.0)).count > 1 }, "\(rounds)")
        // The warm-up rounds are run, and thrown away.
        #expect(samples.map { $0.compactMap { $0 }.count } == [10, 10, 10, 10])
    }

    @Test("a bounded contender warms up once and stops at its bound, among the others' measured rounds")
    func aBoundedContenderStopsAtItsBound() async throws {
        let calls = Mutex<[String]>([])
        let contenders = [
            Contender("fast") { calls.withLock { $0.append("fast") } },
            Contender("slow", sampleLimit: 2) { calls.withLock { $0.append("slow") } },
        ]
        var scale = Scale.quick
        scale.warmUp = 3
        scale.repetitions = 5
        let samples = try await Sampler.run(contenders, scale: scale)
        #expect(
            samples.map { $0.map { $0 != nil } } == [
                Array(repeating: true, count: 5), [true, true, false, false, false],
            ])
        let order = calls.withLock { $0 }
        #expect(order.count { $0 == "fast" } == 8)
        #expect(order.count { $0 == "slow" } == 3)
        // "fast" runs once a round, so the runs of it before a call say the call's round: the
        // slow one warms up in round 2, the others' last warm-up, and is measured in 3 and 4.
        for (index, name) in order.enumerated() where name == "slow" {
            let fastBefore = order[..<index].count { $0 == "fast" }
            #expect((2...5).contains(fastBefore), "\(order)")
        }
    }

    @Test("a ratio is taken round by round against the baseline, and the median of those kept")
    func ratiosArePaired() throws {
        let comparison = Comparison(
            title: "t", metric: .latency, operation: "write", baseline: "base",
            contenders: [Contender("base") {}, Contender("other") {}, Contender("bounded", sampleLimit: 1) {}])
        // The machine slows tenfold in round 2; "other" stays twice the baseline in every round.
        let report = ComparisonReport(
            comparison, samples: [[1, 1, 10, 10, 10], [2, 2, 20, 20, 20], [3, nil, nil, nil, nil]])
        #expect(report.row("base")?.ratio == 1)
        #expect(report.row("other")?.ratio == 2)
        #expect(report.row("bounded")?.ratio == 3)
        // A ratio of medians would call it 0.3×: its one sample fell in a fast round, and the
        // baseline's median in a slow one.
        #expect(report.row("bounded")?.seconds.median == 3)

        let rates = Comparison(
            title: "t", metric: .throughput, operation: "write", baseline: "base",
            contenders: [Contender("base") {}, Contender("faster") {}])
        let rateReport = ComparisonReport(rates, samples: [[1, 10], [0.5, 5]])
        #expect(rateReport.row("faster")?.ratio == 2)
        #expect(rateReport.row("faster")?.perSecond?.median == 1 / 2.75)
    }

    @Test(
        "the median and percentiles interpolate between the samples",
        arguments: [
            ([1.0], 1.0, 1.0, 1.0), ([3.0, 1.0, 2.0], 2.0, 1.2, 2.8), ([4.0, 1.0, 3.0, 2.0], 2.5, 1.3, 3.7),
            (Array(repeating: 7.0, count: 9), 7.0, 7.0, 7.0),
        ])
    func theSpreadInterpolates(_ values: [Double], _ median: Double, _ p10: Double, _ p90: Double) throws {
        let spread = try #require(Spread(values))
        #expect(abs(spread.median - median) < 1e-9)
        #expect(abs(spread.p10 - p10) < 1e-9)
        #expect(abs(spread.p90 - p90) < 1e-9)
        #expect(spread.samples == values.count)
    }

    @Test("no samples make no spread")
    func noSamplesNoSpread() {
        #expect(Spread([]) == nil)
    }
}
