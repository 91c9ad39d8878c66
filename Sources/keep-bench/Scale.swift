/// How much work one run does: the full run the Performance article's figures come from, or the
/// seconds-long `--quick` run a smoke test uses (its figures are not for comparing).
struct Scale: Sendable, Equatable {
    /// Rounds run and thrown away before the measured ones, for every contender.
    var warmUp: Int
    /// Samples kept per contender, unless a contender is bounded.
    var repetitions: Int
    /// Samples kept for a contender so slow it is bounded (the whole-blob store at its
    /// largest count); it also warms up only once.
    var boundedRepetitions: Int
    /// The key counts of the scaling scenario.
    var scalingCounts: [Int]
    /// The chats the reads scenario lists.
    var chatCount: Int
    /// The writer counts of the concurrent-writers scenario.
    var writerCounts: [Int]
    /// Durable writes each writer makes in one sample.
    var writesPerWriter: Int
    /// Samples kept for a contender that takes about half a second: a whole `keep` process,
    /// or the chat list of 10,000 chats.
    var slowRepetitions: Int
    /// Seals or opens per sample of a 1 KiB payload; a 64 KiB sample does 1/16 of these.
    var sealsPerSample: Int
    /// Secret Service calls per sample.
    var secretCallsPerSample: Int
    /// The counts of realistic chats the history scenario lists and searches.
    var historyCounts: [Int] = [10_000, 40_000]
    /// The counts of small (2 KB) chats it lists and searches too.
    var smallHistoryCounts: [Int] = [10_000]
    /// The counts of realistic chats it also seals, and lists and searches beside the plain
    /// ones (each one of ``historyCounts``).
    var sealedHistoryCounts: [Int] = [10_000, 40_000]
    /// The size of the huge chat, in bytes, and how many realistic chats are beside it.
    var hugeChatBytes = 200_000_000
    var hugeChatCompany = 2_000
    /// Samples kept for a contender that rebuilds the chat index (seconds each at 40,000 chats).
    var coldRepetitions = 2
    /// The turns already in the chat the turn scenario adds a turn to.
    var turnCounts: [Int] = [1, 100, 1_000, 2_000]
    /// Whether this is the `--quick` scale.
    var isQuick: Bool

    static let full = Scale(
        warmUp: 3, repetitions: 60, boundedRepetitions: 5, scalingCounts: [10, 1_000, 10_000, 100_000],
        chatCount: 10_000, writerCounts: [1, 4, 16], writesPerWriter: 4, slowRepetitions: 15, sealsPerSample: 320,
        secretCallsPerSample: 5, isQuick: false)

    static let quick = Scale(
        warmUp: 1, repetitions: 3, boundedRepetitions: 2, scalingCounts: [10, 1_000], chatCount: 200,
        writerCounts: [1, 4, 16], writesPerWriter: 1, slowRepetitions: 2, sealsPerSample: 32, secretCallsPerSample: 2,
        historyCounts: [200], smallHistoryCounts: [200], sealedHistoryCounts: [200], hugeChatBytes: 2_000_000,
        hugeChatCompany: 50, coldRepetitions: 2, turnCounts: [1, 20], isQuick: true)

    /// This scale with `count` samples per contender (bounded ones keep their bound, or
    /// fewer when `count` is smaller).
    func with(repetitions count: Int) -> Scale {
        var scale = self
        scale.repetitions = count
        scale.boundedRepetitions = min(boundedRepetitions, count)
        scale.slowRepetitions = min(slowRepetitions, count)
        scale.coldRepetitions = min(coldRepetitions, count)
        return scale
    }
}
