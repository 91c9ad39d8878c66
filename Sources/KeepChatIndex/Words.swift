/// A set of distinct words, each numbered by the order it first came in: the words of one
/// chat's text as the chat index gathers them, and the index's vocabulary in memory.
///
/// A *word* is a maximal run of folded scalars (``TextFolding``) that are letters or digits
/// (``isWordScalar(_:)``, the one predicate the indexer and the query both use); it is kept
/// as the UTF-8 of those scalars. The set is an open-addressed table over one buffer of
/// bytes, so it is cheap to fill from a chat's messages, to walk, and to empty for the next
/// chat, and a vocabulary of hundreds of thousands of words costs a few bytes each beyond
/// their text.
struct Words {
    /// Every word's bytes, one after the other.
    private(set) var bytes: [UInt8] = []
    /// Where each word ends in `bytes` (word `n` runs from `ends[n - 1]`, or 0, to `ends[n]`).
    private(set) var ends: [UInt32] = []
    /// Each word's hash (``hash(_:)``).
    private(set) var hashes: [UInt64] = []
    /// Slots of the table: a word's number plus one (0 is empty).
    private var slots: [UInt32]
    private var mask: Int
    /// The word being gathered by ``add(_:)``.
    private var pending: [UInt8] = []

    init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
    }

    /// How many distinct words the set holds.
    var count: Int { ends.count }

    /// Whether the set holds no word.
    var isEmpty: Bool { ends.isEmpty }

    /// Whether the folded scalar `value` belongs to a word: a letter (general category L) or
    /// a decimal digit (Nd). Everything else (spaces, punctuation, symbols, marks that survive
    /// the fold) ends a word.
    static func isWordScalar(_ value: UInt32) -> Bool {
        if value < 0x80 {
            // Folded ASCII is lower case: a–z, 0–9.
            return value &- 0x61 < 26 || value &- 0x30 < 10 || value &- 0x41 < 26
        }
        guard let scalar = Unicode.Scalar(value) else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
            return true
        default:
            return false
        }
    }

    /// Adds every word of `scalars` (one message's folded text: a word never spans two
    /// messages).
    mutating func add(_ scalars: [UInt32]) {
        pending.removeAll(keepingCapacity: true)
        for value in scalars {
            if value < 0x80 {
                if value &- 0x61 < 26 || value &- 0x30 < 10 || value &- 0x41 < 26 {
                    pending.append(UInt8(value))
                    continue
                }
            } else if Self.isWordScalar(value) {
                Self.appendUTF8(value, to: &pending)
                continue
            }
            if !pending.isEmpty { insertPending() }
        }
        if !pending.isEmpty { insertPending() }
    }

    private mutating func insertPending() {
        do {
            let word = pending[...]
            insert(word, hash: Self.hash(word))
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// The number of `word` (its UTF-8), adding it when it is new; `hash` is ``hash(_:)`` of it.
    @discardableResult
    mutating func insert(_ word: ArraySlice<UInt8>, hash: UInt64) -> (number: Int, inserted: Bool) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let held = slots[slot]
            if held == 0 { break }
            let number = Int(held) - 1
            if hashes[number] == hash, self.word(number) == word { return (number, false) }
            slot = (slot + 1) & mask
        }
        let number = ends.count
        slots[slot] = UInt32(number + 1)
        bytes.append(contentsOf: word)
        ends.append(UInt32(bytes.count))
        hashes.append(hash)
        if ends.count * 2 > slots.count { grow() }
        return (number, true)
    }

    /// The number of `word`, or `nil` when the set does not hold it.
    func number(of word: ArraySlice<UInt8>, hash: UInt64) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let held = slots[slot]
            if held == 0 { return nil }
            let number = Int(held) - 1
            if hashes[number] == hash, self.word(number) == word { return number }
            slot = (slot + 1) & mask
        }
    }

    /// The bytes of word `number`.
    func word(_ number: Int) -> ArraySlice<UInt8> {
        bytes[(number == 0 ? 0 : Int(ends[number - 1]))..<Int(ends[number])]
    }

    /// Empties the set, keeping its room.
    mutating func removeAll() {
        if ends.count * 8 < slots.count {
            // Few words: clearing their slots is cheaper than clearing the table.
            for hash in hashes {
                var slot = Int(truncatingIfNeeded: hash) & mask
                while slots[slot] != 0 {
                    slots[slot] = 0
                    slot = (slot + 1) & mask
                }
            }
        } else {
            for index in slots.indices { slots[index] = 0 }
        }
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
    }

    /// The words, in order, without the table: what a chat read on one core hands the
    /// batch being filled on another, at the cost of its words' bytes only.
    var list: List { List(bytes: bytes, ends: ends, hashes: hashes) }

    private mutating func grow() {
        slots = [UInt32](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(number + 1)
        }
    }

    /// A 64-bit hash of a word's bytes (FNV-1a, then mixed): the same word, the same hash.
    static func hash(_ word: ArraySlice<UInt8>) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in word { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return mix(value)
    }

    /// A 64-bit finaliser (from SplitMix64): neighbouring values land far apart.
    static func mix(_ key: UInt64) -> UInt64 {
        var value = key &+ 0x9E37_79B9_7F4A_7C15
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// Appends the UTF-8 of the scalar `value` to `out`.
    static func appendUTF8(_ value: UInt32, to out: inout [UInt8]) {
        switch value {
        case 0..<0x80:
            out.append(UInt8(value))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | value >> 6))
            out.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | value >> 12))
            out.append(UInt8(0x80 | value >> 6 & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        default:
            out.append(UInt8(0xF0 | value >> 18 & 0x07))
            out.append(UInt8(0x80 | value >> 12 & 0x3F))
            out.append(UInt8(0x80 | value >> 6 & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        }
    }
}

// MARK: - A list of words

extension Words {
    /// Words in order, each with its hash, that can be walked but not looked up.
    struct List: Sendable {
        let bytes: [UInt8]
        let ends: [UInt32]
        let hashes: [UInt64]

        /// How many words the list holds.
        var count: Int { ends.count }

        /// The bytes of the word at `place`.
        func word(_ place: Int) -> ArraySlice<UInt8> {
            bytes[(place == 0 ? 0 : Int(ends[place - 1]))..<Int(ends[place])]
        }
    }
}
