/// Runs contenders against each other, interleaved: every round gives each contender one
/// sample, so drift in the machine (page cache, writeback, a neighbour's load) falls on
/// all of them alike, rather than on whichever ran last.
///
/// The first ``Scale/warmUp`` rounds are run and thrown away. The order within a round is
/// shuffled afresh each round (from a fixed seed, so every run takes the same orders): a
/// contender pays for work its predecessor left behind (a checkpoint, writeback), and a
/// fixed or merely rotated order would hand it the same predecessor every round. A bounded
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
        var generator = SplitMix64(seed: 0x6B65_6570)
        for round in 0..<rounds {
            for index in contenders.indices.shuffled(using: &generator) {
                let contender = contenders[index]
                let warmUp =
                    contender.isCold ? 0 : contender.sampleLimit == nil ? scale.warmUp : min(1, scale.warmUp)
                let kept = contender.sampleLimit.map { min($0, scale.repetitions) } ?? scale.repetitions
                // The bounded contender's rounds end where everyone's warm-up ends plus its own count.
                let first = scale.warmUp - warmUp
                guard round >= first, round < scale.warmUp + kept else { continue }
                let clock = ContinuousClock()
                let start = clock.now
                let measured = try await contender.sample()
                let elapsed = measured ?? clock.now - start
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

// MARK: - The shuffle

/// SplitMix64: a small, fast generator whose whole sequence follows from its seed (the
/// sampler's shuffles, ``RealisticText``'s words).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
