import Foundation

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
    /// Each word's bytes packed into one number (``key(_:)``), or 0 for a word of more than
    /// eight bytes: most words are short, and two short words are the same word exactly when
    /// their keys are equal.
    private var keys: [UInt64] = []
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

    /// Adds every word of `text` (one message: a word never spans two messages), folded by
    /// `folding`: the words ``add(_:)`` adds for `folding.folded(text)`, gathered from the
    /// text's UTF-8 directly (``forEachWord(of:folding:_:)``).
    mutating func add(_ text: String, folding: inout TextFolding) {
        let gathered = Self.forEachWord(of: text, folding: &folding) { word, hash, key in
            insert(word, hash: hash, key: key)
        }
        // Bytes that are not UTF-8 (which a String never holds), or a fold past the room:
        // the words of the folded text, as the reference gathers them (the words already
        // added are whole ones, and stay).
        if !gathered { add(folding.folded(text)) }
    }

    /// Each byte's part in a word as ``forEachWord(of:folding:_:)`` reads plain ASCII: a
    /// letter folded to lower case or a digit as itself, 0 for any other ASCII byte (it ends
    /// a word), ``beyondASCII`` for a byte of a longer scalar.
    private static let asciiWordBytes: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch byte {
        case 0x30...0x39, 0x61...0x7A: return UInt8(byte)
        case 0x41...0x5A: return UInt8(byte | 0x20)
        case 0x80...: return beyondASCII
        default: return 0
        }
    }
    private static let beyondASCII: UInt8 = 0xFF
    /// The high bit of each byte of a 64-bit word.
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    /// The bit that makes an ASCII letter lower case, in each byte.
    private static let caseBits: UInt64 = 0x2020_2020_2020_2020

    /// The high bit of each byte of `chunk` (eight ASCII bytes, none with its high bit set)
    /// that is a letter or a digit: what ``asciiWordBytes`` says of each, for all eight at
    /// once. A byte below 0x80 plus a constant below 0x81 never carries into the next byte,
    /// so each sum's high bit says whether the byte is at least a bound.
    @inline(__always)
    static func wordBytes(ofASCII chunk: UInt64) -> UInt64 {
        let atLeastZero = chunk &+ 0x5050_5050_5050_5050  // 0x80 - 0x30 ("0")
        let pastNine = chunk &+ 0x4646_4646_4646_4646  // 0x7F - 0x39 ("9")
        let lower = chunk | caseBits
        let atLeastA = lower &+ 0x1F1F_1F1F_1F1F_1F1F  // 0x80 - 0x61 ("a")
        let pastZ = lower &+ 0x0505_0505_0505_0505  // 0x7F - 0x7A ("z")
        return ((atLeastZero & ~pastNine) | (atLeastA & ~pastZ)) & highBits
    }

    /// Calls `body` with every word of `text` (one message) in order, repeats and all, folded
    /// by `folding`: each word's UTF-8, its ``hash(_:)`` and its ``key(_:)``. The words are
    /// gathered from the text's UTF-8 directly, a plain ASCII byte at a time by one table
    /// lookup and without a fold, so that finding a chat's words costs little more than
    /// reading it. `false` when the text cannot be read so (bytes that are not UTF-8, which
    /// a String never holds, or a fold past the room), after the whole words before it.
    @inline(__always)
    static func forEachWord(
        of text: String, folding: inout TextFolding,
        _ body: (_ word: UnsafeBufferPointer<UInt8>, _ hash: UInt64, _ key: UInt64) -> Void
    ) -> Bool {
        var text = text
        let count = text.utf8.count
        guard count > 0 else { return true }
        return text.withUTF8 { utf8 in
            // Room for the longest word a fold can make of the text: a scalar of two bytes or
            // more folds to a few scalars of at most four bytes each.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count * 5 + 64) { scratch in
                asciiWordBytes.withUnsafeBufferPointer { table in
                    forEachWord(utf8, scratch: scratch, table: table, folding: &folding, body)
                }
            }
        }
    }

    @inline(__always)
    private static func forEachWord(
        _ utf8: UnsafeBufferPointer<UInt8>, scratch: UnsafeMutableBufferPointer<UInt8>,
        table: UnsafeBufferPointer<UInt8>, folding: inout TextFolding,
        _ body: (_ word: UnsafeBufferPointer<UInt8>, _ hash: UInt64, _ key: UInt64) -> Void
    ) -> Bool {
        var length = 0
        // The first eight bytes of the word so far, packed as ``key(_:)`` packs them, while
        // the word is plain ASCII.
        var key: UInt64 = 0
        var plain = true
        var index = 0
        var expansion: [UInt32] = []
        let count = utf8.count
        // The word in `scratch[..<length]` handed to `body`.
        func finish() {
            let word = UnsafeBufferPointer(rebasing: scratch[..<length])
            if plain && length <= 8 {
                body(word, mix(key), key)
            } else {
                let key = Self.key(word)
                body(word, key != 0 ? mix(key) : hash(word), key)
            }
            length = 0
            key = 0
            plain = true
        }
        let base = utf8.baseAddress.map(UnsafeRawPointer.init)
        while index < count {
            // Eight plain ASCII bytes at a time, as whole runs of word bytes (a chunk's runs
            // write at most fifteen bytes past the word as it was); a byte beyond ASCII, and
            // the last few bytes, a scalar at a time below.
            if let base, let out = scratch.baseAddress, index &+ 8 <= count, length &+ 16 <= scratch.count {
                let chunk = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if chunk & Self.highBits == 0 {
                    let wordBytes = Self.wordBytes(ofASCII: chunk)
                    // Letters fold to lower case by one bit, which digits already have set.
                    let folded = chunk | Self.caseBits
                    var position = 0
                    while position < 8 {
                        let rest = wordBytes &>> UInt64(position &<< 3)
                        guard rest & 0x80 != 0 else {
                            if length > 0 { finish() }
                            // To the next word byte, or past the chunk.
                            position &+= rest.trailingZeroBitCount &>> 3
                            continue
                        }
                        // A run of word bytes: to the first byte that is not one, or the chunk's end.
                        let run = (~rest & Self.highBits).trailingZeroBitCount &>> 3
                        let piece = folded &>> UInt64(position &<< 3)
                        // All eight bytes stored, the run's kept: the rest is written over, or
                        // past the word.
                        UnsafeMutableRawPointer(out + length).storeBytes(of: piece, as: UInt64.self)
                        if length &+ run <= 8 {
                            let kept = run == 8 ? piece : piece & ((1 &<< UInt64(run &<< 3)) &- 1)
                            key |= kept &<< UInt64(length &<< 3)
                        }
                        length &+= run
                        position &+= run
                    }
                    index &+= 8
                    continue
                }
            }
            var folded = table[Int(utf8[index])]
            var size = 1
            var scalar: UInt32 = 0
            if folded == beyondASCII {
                guard let (value, length) = TextFolding.decode(utf8, at: index) else { return false }
                scalar = value
                size = length
                // Most scalars beside ASCII fold to one ASCII letter, and take its path.
                if let ascii = folding.asciiFold(of: value) { folded = table[Int(ascii)] }
            }
            if folded != beyondASCII {
                index &+= size
                if folded != 0 {
                    guard length < scratch.count else { return false }
                    scratch[length] = folded
                    if length < 8 { key |= UInt64(folded) &<< (UInt64(length) &<< 3) }
                    length &+= 1
                } else if length > 0 {
                    finish()
                }
                continue
            }
            index += size
            expansion.removeAll(keepingCapacity: true)
            folding.fold(scalar: scalar, into: &expansion)
            for value in expansion {
                if isWordScalar(value) {
                    guard length + 4 <= scratch.count else { return false }
                    length = writeUTF8(value, into: scratch, at: length)
                    // Packed once the word is whole.
                    plain = false
                } else if length > 0 {
                    finish()
                }
            }
        }
        if length > 0 { finish() }
        return true
    }

    /// Adds every word of `scalars` (one message's folded text: a word never spans two
    /// messages): the reference ``add(_:folding:)`` answers to.
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
        word.withUnsafeBufferPointer { word in insert(word, hash: hash) }
    }

    /// The number of `word` (its UTF-8), adding it when it is new; `hash` is ``hash(_:)`` of it.
    @discardableResult
    mutating func insert(_ word: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (number: Int, inserted: Bool) {
        insert(word, hash: hash, key: Self.key(word))
    }

    /// ``insert(_:hash:)`` with the word's ``key(_:)`` already made.
    @discardableResult
    mutating func insert(
        _ word: UnsafeBufferPointer<UInt8>, hash: UInt64, key: UInt64
    ) -> (number: Int, inserted: Bool) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let held = slots[slot]
            if held == 0 { break }
            let number = Int(held) - 1
            if key != 0 {
                if keys[number] == key { return (number, false) }
            } else if hashes[number] == hash, holds(number, word) {
                return (number, false)
            }
            slot = (slot + 1) & mask
        }
        let number = ends.count
        slots[slot] = UInt32(number + 1)
        bytes.append(contentsOf: word)
        ends.append(UInt32(bytes.count))
        hashes.append(hash)
        keys.append(key)
        if ends.count * 2 > slots.count { grow() }
        return (number, true)
    }

    /// The number of `word`, or `nil` when the set does not hold it.
    func number(of word: ArraySlice<UInt8>, hash: UInt64) -> Int? {
        word.withUnsafeBufferPointer { word in number(of: word, hash: hash) }
    }

    /// The number of `word`, or `nil` when the set does not hold it.
    func number(of word: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int? {
        number(of: word, hash: hash, key: Self.key(word))
    }

    /// ``number(of:hash:)`` with the word's ``key(_:)`` already made.
    @inline(__always)
    func number(of word: UnsafeBufferPointer<UInt8>, hash: UInt64, key: UInt64) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let held = slots[slot]
            if held == 0 { return nil }
            let number = Int(held) - 1
            if key != 0 {
                if keys[number] == key { return number }
            } else if hashes[number] == hash, holds(number, word) {
                return number
            }
            slot = (slot + 1) & mask
        }
    }

    /// The bytes of a word of at most eight bytes packed into one number, the first in the
    /// lowest byte; 0 for a longer word. Word bytes are never 0, so no two short words
    /// share a key, and no short word's key is 0.
    static func key(_ word: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard word.count <= 8 else { return 0 }
        var key: UInt64 = 0
        for (index, byte) in word.enumerated() { key |= UInt64(byte) &<< (UInt64(index) &<< 3) }
        return key
    }

    /// Whether word `number` is `word`, a word longer than eight bytes.
    private func holds(_ number: Int, _ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = number == 0 ? 0 : Int(ends[number - 1])
        guard Int(ends[number]) - start == word.count else { return false }
        return bytes.withUnsafeBufferPointer { stored in
            guard let base = stored.baseAddress, let other = word.baseAddress else { return word.isEmpty }
            let held = UnsafeRawPointer(base + start)
            let wanted = UnsafeRawPointer(other)
            // Words are short: eight bytes at a time, inline, rather than a call to memcmp.
            var index = 0
            while index + 8 <= word.count {
                guard
                    held.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        == wanted.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                else { return false }
                index += 8
            }
            while index < word.count {
                guard base[start + index] == other[index] else { return false }
                index += 1
            }
            return true
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
        keys.removeAll(keepingCapacity: true)
    }

    private mutating func grow() {
        slots = [UInt32](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(number + 1)
        }
    }

    /// A 64-bit hash of a word's bytes: the same word, the same hash (in this process; a hash
    /// is never stored).
    static func hash(_ word: ArraySlice<UInt8>) -> UInt64 {
        word.withUnsafeBufferPointer(hash)
    }

    /// A 64-bit hash of a word's bytes: its ``key(_:)`` mixed, for a short word; else its
    /// bytes eight at a time, each eight mixed into the length.
    static func hash(_ word: UnsafeBufferPointer<UInt8>) -> UInt64 {
        if word.count <= 8 { return mix(key(word)) }
        var value = UInt64(word.count) &* 0x9E37_79B9_7F4A_7C15
        guard let base = word.baseAddress else { return mix(value) }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= word.count {
            value = mix(value ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            index += 8
        }
        if index < word.count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while index < word.count {
                tail |= UInt64(base[index]) << shift
                shift += 8
                index += 1
            }
            value = mix(value ^ tail)
        }
        return value
    }

    /// A 64-bit finaliser (from SplitMix64): neighbouring values land far apart.
    static func mix(_ key: UInt64) -> UInt64 {
        var value = key &+ 0x9E37_79B9_7F4A_7C15
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// Writes the UTF-8 of the scalar `value` into `out` at `index`, and answers where it
    /// ends; `out` has room for four bytes there.
    private static func writeUTF8(_ value: UInt32, into out: UnsafeMutableBufferPointer<UInt8>, at index: Int) -> Int {
        switch value {
        case 0..<0x80:
            out[index] = UInt8(value)
            return index + 1
        case 0x80..<0x800:
            out[index] = UInt8(0xC0 | value >> 6)
            out[index + 1] = UInt8(0x80 | value & 0x3F)
            return index + 2
        case 0x800..<0x10000:
            out[index] = UInt8(0xE0 | value >> 12)
            out[index + 1] = UInt8(0x80 | value >> 6 & 0x3F)
            out[index + 2] = UInt8(0x80 | value & 0x3F)
            return index + 3
        default:
            out[index] = UInt8(0xF0 | value >> 18 & 0x07)
            out[index + 1] = UInt8(0x80 | value >> 12 & 0x3F)
            out[index + 2] = UInt8(0x80 | value >> 6 & 0x3F)
            out[index + 3] = UInt8(0x80 | value & 0x3F)
            return index + 4
        }
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
