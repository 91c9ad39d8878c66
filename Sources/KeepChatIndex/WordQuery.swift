import Foundation

/// What a search's text asks of a chat's words: its folded text (``TextFolding``) split into
/// runs of word scalars (``Words/isWordScalar(_:)``), each knowing whether the text bounds it
/// on the left and on the right.
///
/// A run is *bounded on the left* when a scalar that is not a word scalar precedes it within
/// the text, and on the right when one follows it. Where the text stands in a message's
/// folded text, each run lies inside one of the message's words, and a bound of the run is a
/// bound of that word, so the word
/// - is the run, when the run is bounded on both sides;
/// - begins with the run, bounded on the left only;
/// - ends with the run, bounded on the right only;
/// - holds the run somewhere, bounded on neither.
///
/// A chat can contain the text only if, for every run, it holds a word the run admits
/// (``admits(_:_:)``); so the chats holding such a word for every run are all the candidates
/// a search need read. Text with no run (punctuation only, or a combining mark alone) asks
/// nothing of the words, and every chat is a candidate.
struct WordQuery {
    /// One run of word scalars of the text, as UTF-8, and its bounds.
    struct Run: Hashable {
        let bytes: [UInt8]
        let boundedLeft: Bool
        let boundedRight: Bool
    }

    /// The distinct runs of the text, in the order they first stand in it.
    let runs: [Run]

    /// The query of the folded text `scalars`.
    init(folded scalars: [UInt32]) {
        var runs: [Run] = []
        var seen = Set<Run>()
        var current: [UInt8] = []
        var start = 0
        for (index, value) in scalars.enumerated() {
            if Words.isWordScalar(value) {
                if current.isEmpty { start = index }
                Words.appendUTF8(value, to: &current)
                continue
            }
            if !current.isEmpty {
                let run = Run(bytes: current, boundedLeft: start > 0, boundedRight: true)
                if seen.insert(run).inserted { runs.append(run) }
                current = []
            }
        }
        if !current.isEmpty {
            let run = Run(bytes: current, boundedLeft: start > 0, boundedRight: false)
            if seen.insert(run).inserted { runs.append(run) }
        }
        self.runs = runs
    }

    /// Whether a chat holding the word `word` (its UTF-8) may hold `run` where that word
    /// stands: equal, a prefix, a suffix or a part of it, as the run's bounds say.
    static func admits(_ word: ArraySlice<UInt8>, _ run: Run) -> Bool {
        word.withUnsafeBufferPointer { word in
            run.bytes.withUnsafeBufferPointer { wanted in admits(word, wanted, run) }
        }
    }

    /// The numbers of the words of `vocabulary` that `run` admits, ascending.
    static func numbers(admittedBy run: Run, in vocabulary: Words) -> [UInt64] {
        var numbers: [UInt64] = []
        vocabulary.bytes.withUnsafeBufferPointer { bytes in
            vocabulary.ends.withUnsafeBufferPointer { ends in
                run.bytes.withUnsafeBufferPointer { wanted in
                    var start = 0
                    for (number, end) in ends.enumerated() {
                        let word = UnsafeBufferPointer(rebasing: bytes[start..<Int(end)])
                        start = Int(end)
                        if admits(word, wanted, run) { numbers.append(UInt64(number)) }
                    }
                }
            }
        }
        return numbers
    }

    private static func admits(
        _ word: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>, _ run: Run
    )
        -> Bool
    {
        guard word.count >= wanted.count, let wantedBase = wanted.baseAddress, let wordBase = word.baseAddress else {
            return false
        }
        switch (run.boundedLeft, run.boundedRight) {
        case (true, true):
            return word.count == wanted.count && memcmp(wordBase, wantedBase, wanted.count) == 0
        case (true, false):
            return memcmp(wordBase, wantedBase, wanted.count) == 0
        case (false, true):
            return memcmp(wordBase + (word.count - wanted.count), wantedBase, wanted.count) == 0
        case (false, false):
            let first = wanted[0]
            for start in 0...(word.count - wanted.count)
            where word[start] == first && memcmp(wordBase + start, wantedBase, wanted.count) == 0 {
                return true
            }
            return false
        }
    }
}
