/// Runs contenders against each other, interleaved: every round gives each contender one
/// sample, so drift in the machine (page cache, writeback, a neighbour's load) falls on
/// all of them alike, rather than on whichever ran last.
///
/// The first ``Scale/warmUp`` rounds are run and thrown away. The order within a round
/// rotates by one each round, so no contender always follows the same one. A bounded
/// contender (``Contender/sampleLimit``) warms up once and then takes part only in the
/// first rounds it is allowed.
///
/// Samples are kept by round, so a contender can be compared with its baseline round by
/// round: two samples taken moments apart saw the same machine.
enum Sampler {
    /// Each contender's samples in seconds per operation, in the order given: one entry per
    /// measured round, `nil` for a round a bounded contender sat out.
    static func run(_ contenders: [Contender], scale: Scale) async throws -> [[Double?]] {
        var samples = Array(repeating: [Double?](repeating: nil, count: scale.repetitions), count: contenders.count)
        let rounds = scale.warmUp + scale.repetitions
        for round in 0..<rounds {
            for offset in 0..<contenders.count {
                let index = (offset + round) % contenders.count
                let contender = contenders[index]
                let warmUp = contender.sampleLimit == nil ? scale.warmUp : min(1, scale.warmUp)
                let kept = contender.sampleLimit.map { min($0, scale.repetitions) } ?? scale.repetitions
                // The bounded contender's rounds end where everyone's warm-up ends plus its own count.
                let first = scale.warmUp - warmUp
                guard round >= first, round < scale.warmUp + kept else { continue }
                let clock = ContinuousClock()
                let start = clock.now
                try await contender.sample()
                let elapsed = clock.now - start
                if round >= scale.warmUp {
                    samples[index][round - scale.warmUp] = seconds(elapsed) / Double(contender.operationsPerSample)
                }
            }
        }
        return samples
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
