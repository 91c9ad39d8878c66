/// One thing measured in a comparison: a Keep store or a baseline, doing the same work.
///
/// `sample` does `operationsPerSample` operations and returns; the sampler times it and
/// divides. A contender whose operations are very slow sets `sampleLimit`, and then also
/// warms up only once; its note says so.
struct Contender: Sendable {
    /// The row's name in the table: `"file store"`, `"SQLite WAL, synchronous=FULL"`.
    let name: String
    /// A word the table prints beside the name: `"NOT DURABLE"`, a bound.
    var note: String?
    /// The scenario's count for this row (keys already held, writers), for charts.
    var count: Int?
    /// Operations one call of `sample` performs.
    var operationsPerSample = 1
    /// At most this many samples are kept; `nil` for the scale's repetitions.
    var sampleLimit: Int?
    /// Whether every sample starts from nothing (the index deleted first), so that a round
    /// of warm-up would only cost time: such a contender warms up not at all.
    var isCold = false
    /// Performs one sample's operations and answers how long the part that is measured
    /// took (`nil`: the whole call); throws when one of them fails.
    let sample: @Sendable () async throws -> Duration?

    init(
        _ name: String, note: String? = nil, count: Int? = nil, operationsPerSample: Int = 1, sampleLimit: Int? = nil,
        sample: @escaping @Sendable () async throws -> Void
    ) {
        self.name = name
        self.note = note
        self.count = count
        self.operationsPerSample = operationsPerSample
        self.sampleLimit = sampleLimit
        self.sample = {
            try await sample()
            return nil
        }
    }

    /// A contender whose sample sets up, or tidies up after, what it measures (the index
    /// deleted and rebuilt before the search that is timed): `timing` answers the time of
    /// the measured part alone.
    static func timed(
        _ name: String, note: String? = nil, count: Int? = nil, sampleLimit: Int? = nil,
        timing: @escaping @Sendable () async throws -> Duration
    ) -> Contender {
        Contender(name: name, note: note, count: count, sampleLimit: sampleLimit, sample: timing)
    }

    /// This contender, marked ``isCold``.
    var cold: Contender {
        var contender = self
        contender.isCold = true
        return contender
    }

    private init(
        name: String, note: String?, count: Int?, sampleLimit: Int?,
        sample: @escaping @Sendable () async throws -> Duration?
    ) {
        self.name = name
        self.note = note
        self.count = count
        self.sampleLimit = sampleLimit
        self.sample = sample
    }
}
