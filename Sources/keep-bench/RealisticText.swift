import Foundation

/// Text that reads, to the chat index, like what people ask and are answered: words drawn
/// from a Zipf-distributed vocabulary (a few hundred common English words first, then made-up
/// words of real syllables, some accented), in sentences and paragraphs, with Markdown
/// (headings, lists, bold, inline code) and fenced code blocks in the answers.
///
/// Deterministic: the same seed gives the same bytes, on every machine and every run.
struct RealisticText {
    private var generator: SplitMix64

    /// Text for `seed`.
    init(seed: Int) {
        generator = SplitMix64(seed: UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 ^ 0x6B65_6570)
    }

    /// A question's size, in bytes: 200 to 2,000, most of them short.
    mutating func questionSize() -> Int { 200 + Int(1800 * pow6(generator.unit())) }

    /// An answer's size, in bytes: 200 to 2,000, longer than questions on the whole.
    mutating func answerSize() -> Int {
        let unit = generator.unit()
        return 200 + Int(1800 * pow(unit, 1.3))
    }

    /// A whole number from `range`.
    mutating func number(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(generator.next() % UInt64(range.count))
    }

    /// A question of about `size` bytes (never more): prose, now and then inline code.
    mutating func question(_ size: Int) -> String {
        var text = Writer(limit: size)
        while !text.isFull {
            paragraph(into: &text, sentences: number(in: 1...3))
        }
        return text.string
    }

    /// An answer of about `size` bytes (never more): paragraphs, headings, lists and code.
    mutating func answer(_ size: Int) -> String {
        var text = Writer(limit: size)
        while !text.isFull {
            switch generator.next() % 10 {
            case 0: heading(into: &text)
            case 1, 2: list(into: &text)
            case 3, 4: code(into: &text)
            default: paragraph(into: &text, sentences: number(in: 2...5))
            }
        }
        return text.string
    }

    // MARK: - Blocks

    private mutating func paragraph(into text: inout Writer, sentences: Int) {
        var block: [UInt8] = []
        for index in 0..<sentences {
            if index > 0 { block.append(0x20) }
            sentence(into: &block)
        }
        text.add(block)
    }

    private mutating func heading(into text: inout Writer) {
        var block = Array("## ".utf8)
        for index in 0..<number(in: 2...4) {
            if index > 0 { block.append(0x20) }
            block += word(capitalized: index == 0)
        }
        text.add(block)
    }

    private mutating func list(into text: inout Writer) {
        var block: [UInt8] = []
        for index in 0..<number(in: 3...5) {
            if index > 0 { block.append(0x0A) }
            block += Array("- ".utf8)
            sentence(into: &block, words: 3...9)
        }
        text.add(block)
    }

    private mutating func code(into text: inout Writer) {
        let languages = ["swift", "python", "sh", "json", ""]
        var block = Array(("```" + languages[Int(generator.next() % 5)] + "\n").utf8)
        for _ in 0..<number(in: 3...10) {
            block += Array(String(repeating: " ", count: 4 * Int(generator.next() % 3)).utf8)
            switch generator.next() % 4 {
            case 0:
                block += Array("let ".utf8) + plainWord() + Array(" = ".utf8) + plainWord() + [0x28]
                block += plainWord() + Array(", \(generator.next() % 1000))".utf8)
            case 1:
                block += Array("for ".utf8) + plainWord() + Array(" in ".utf8) + plainWord()
                block += Array(" { total += 1 }".utf8)
            case 2:
                block += Array("# ".utf8)
                sentence(into: &block, words: 3...8)
            default:
                block += plainWord() + [0x2E] + plainWord() + Array("(\"".utf8) + plainWord() + Array("\")".utf8)
            }
            block.append(0x0A)
        }
        block += Array("```".utf8)
        text.add(block)
    }

    /// A sentence: a capital, words (now and then bold or inline code), a stop.
    private mutating func sentence(into block: inout [UInt8], words: ClosedRange<Int> = 5...20) {
        let count = number(in: words)
        for index in 0..<count {
            if index > 0 {
                block.append(generator.next() % 12 == 0 ? 0x2C : 0x20)
                if block.last == 0x2C { block.append(0x20) }
            }
            let roll = generator.next() % 40
            if roll == 0 {
                block += [0x60] + plainWord() + [0x60]
            } else if roll == 1 {
                block += [0x2A, 0x2A] + word(capitalized: false) + [0x2A, 0x2A]
            } else {
                block += word(capitalized: index == 0)
            }
        }
        let stops: [UInt8] = [0x2E, 0x2E, 0x2E, 0x2E, 0x3F, 0x21]
        block.append(stops[Int(generator.next() % UInt64(stops.count))])
    }

    private mutating func word(capitalized: Bool) -> [UInt8] {
        var word = Vocabulary.shared.words[Vocabulary.shared.rank(generator.unit())]
        if capitalized, let first = word.first, first >= 0x61, first <= 0x7A { word[0] = first - 0x20 }
        return word
    }

    /// A word of ASCII letters only, for code.
    private mutating func plainWord() -> [UInt8] {
        let word = Vocabulary.shared.words[Vocabulary.shared.rank(generator.unit())]
        let plain = word.filter { $0 >= 0x61 && $0 <= 0x7A }
        return plain.isEmpty ? Array("value".utf8) : plain
    }

    private func pow6(_ value: Double) -> Double {
        let square = value * value
        return square * square * square
    }
}

// MARK: - The pieces

extension RealisticText {
    /// Bytes up to a limit, blocks separated by a blank line: a block that does not fit is
    /// cut at its last space that fits (a code block is left out instead, so every fence
    /// closes), and then the text is full.
    private struct Writer {
        let limit: Int
        var bytes: [UInt8] = []
        private(set) var isFull = false

        init(limit: Int) {
            self.limit = limit
            bytes.reserveCapacity(limit)
        }

        var string: String { String(decoding: bytes, as: UTF8.self) }

        mutating func add(_ block: [UInt8]) {
            let separator = bytes.isEmpty ? 0 : 2
            if bytes.count + separator + block.count <= limit {
                if separator > 0 { bytes += [0x0A, 0x0A] }
                bytes += block
                return
            }
            isFull = true
            let room = limit - bytes.count - separator
            // A fenced block, or too little room for a few words: the text ends here.
            guard room > 40, block.first != 0x60 else {
                if bytes.isEmpty { bytes = Array(repeating: 0x61, count: limit) }
                return
            }
            // Cut at a space, which never splits a character's bytes.
            var end = room
            while end > 0, block[end] != 0x20 { end -= 1 }
            if separator > 0 { bytes += [0x0A, 0x0A] }
            bytes += block[..<end]
            bytes.append(0x2E)
        }
    }

    /// The words, most common first, and the Zipf distribution over their ranks.
    private final class Vocabulary: Sendable {
        static let shared = Vocabulary()

        let words: [[UInt8]]
        /// Each rank's cumulative probability.
        private let cumulative: [Double]

        private init() {
            let common = """
                the of and to a in is it you that for on with as this are be or can not by your from \
                have but if an will at use what which when there how one more file so we all they do \
                time can’t also other into new would like then only my than some data about code should \
                need just make any each does way first where same set run value test error memory line \
                chat keep store write read list search index server model question answer user text \
                build swift function return type string array key because while after before without \
                both those these here why get see could two many much most very well still even back \
                work problem change system example default option command output input process thread \
                page cache disk size byte number word name path call method class struct protocol \
                result case order thing point part place right left long short small large fast slow \
                better best good bad true false open close start stop end begin keep take give show
                """
            var words = common.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { Array($0.utf8) }
            let onsets = [
                "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
                "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "",
            ]
            let vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "é", "ü", "ö", "å", "è"]
            let codas = ["", "n", "r", "s", "t", "l", "m", "nd", "st", "rk", "ng", "ck", "ñ", "x"]
            var generator = SplitMix64(seed: 0x766F_6361_6275_6C61)
            func pick(_ count: Int) -> Int { Int(generator.next() % UInt64(count)) }
            var seen = Set(words)
            while words.count < 12_000 {
                var word = ""
                for _ in 0..<(1 + pick(3)) {
                    // Accented vowels and codas a few times in a hundred, as in borrowed words.
                    let vowel = vowels[pick(9) == 0 ? pick(vowels.count) : pick(9)]
                    let coda = codas[pick(20) == 0 ? pick(codas.count) : pick(12)]
                    word += onsets[pick(onsets.count)] + vowel + coda
                }
                let bytes = Array(word.utf8)
                if bytes.count > 1, seen.insert(bytes).inserted { words.append(bytes) }
            }
            self.words = words
            var total = 0.0
            var cumulative: [Double] = []
            cumulative.reserveCapacity(words.count)
            for rank in 1...words.count {
                total += 1 / pow107(Double(rank))
                cumulative.append(total)
            }
            self.cumulative = cumulative.map { $0 / total }
        }

        /// The rank whose cumulative probability first reaches `unit` (in [0, 1)).
        func rank(_ unit: Double) -> Int {
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < unit { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}

/// `value` to the power 1.07, Zipf's exponent for English text.
private func pow107(_ value: Double) -> Double {
    value * exp(0.07 * log(value))
}
