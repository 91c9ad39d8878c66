import Synchronization
import Testing

@testable import keep_bench

/// How samples are taken and summarised: interleaved, warmed up, bounded where asked.
@Suite("keep-bench's sampler")
struct SamplerTests {
    @Test("contenders are sampled interleaved, the order rotating each round, after the warm-up rounds")
    func contendersAreInterleaved() async throws {
        let calls = Mutex<[String]>([])
        let contenders = ["A", "B", "C"].map { name in Contender(name) { calls.withLock { $0.append(name) } } }
        var scale = Scale.quick
        scale.warmUp = 1
        scale.repetitions = 3
        let samples = try await Sampler.run(contenders, scale: scale)
        #expect(calls.withLock { $0 } == ["A", "B", "C", "B", "C", "A", "C", "A", "B", "A", "B", "C"])
        // The warm-up round is run, and thrown away.
        #expect(samples.map(\.count) == [3, 3, 3])
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
        #expect(samples.map(\.count) == [5, 2])
        // The slow one warms up in round 2, the others' last warm-up, and is measured in rounds
        // 3 and 4, the others' first measured ones; the order rotates each round.
        #expect(
            calls.withLock { $0 } == [
                "fast", "fast", "fast", "slow", "slow", "fast", "fast", "slow", "fast", "fast", "fast",
            ])
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
