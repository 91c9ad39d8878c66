/// Which chats hold each word: the search half of the chat index, built a batch of chats
/// at a time and kept as buckets of word numbers.
///
/// It is filled with the numbers the index's vocabulary gives words (``Words``), each with
/// a chat that holds it. Numbers fall into ``bucketCount`` buckets by the top bits of their
/// mix, and each bucket of a batch is one blob: its numbers in ascending order, each with the
/// chats that hold it. One row per bucket keeps a batch to a few thousand rows however many
/// words it has, and a sealed blob (``ChatIndexSealing``) hides which words a bucket holds.
///
/// A blob is a run of entries: the word's number (8 bytes, little-endian), the number of
/// chats, then the chats' numbers as ascending gaps, each a LEB128 varint (the first counted
/// from 0).
struct Postings {
    /// How many buckets words fall into.
    static let bucketCount = 4096

    /// The bucket the word numbered `word` falls into.
    static func bucket(_ word: UInt64) -> Int { Int(Words.mix(word) >> 52) }

    /// The word numbers added, each once.
    private var words: [UInt64] = []
    /// Every posting: its key's place in `words`, and its chat, in the order added. Put in
    /// order per key only when the batch is written, by counting: two passes over the
    /// postings, never a walk from one posting to the next of its key (a cache miss each).
    private var postingWords: [UInt32] = []
    private var postingChats: [UInt32] = []
    private var slots: [Int32]
    private var mask: Int

    init(capacity: Int = 1 << 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    /// Makes room for `postings` postings at once, so that a batch filled up to that many
    /// never regrows its arrays (a regrowth holds the old and the new side by side).
    mutating func reserve(_ postings: Int) {
        postingWords.reserveCapacity(postings)
        postingChats.reserveCapacity(postings)
    }

    /// Whether no word was added.
    var isEmpty: Bool { words.isEmpty }

    /// How many postings are held, over every word: the batch's size.
    var postingCount: Int { postingChats.count }

    /// Records that the chat `chat` holds the word numbered `word`, chats in any order; a
    /// pair added twice is kept once.
    mutating func add(_ word: UInt64, chat: UInt32) {
        var slot = Int(truncatingIfNeeded: Words.mix(word)) & mask
        while true {
            let held = slots[slot]
            if held < 0 { break }
            if words[Int(held)] == word {
                postingWords.append(UInt32(held))
                postingChats.append(chat)
                return
            }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(words.count)
        postingWords.append(UInt32(words.count))
        postingChats.append(chat)
        words.append(word)
        if words.count * 2 > slots.count { grow() }
    }

    /// Every bucket that holds a word, with its blob, each word numbered as `renumbered`
    /// says (a word numbered in memory may take another number where it is stored).
    func buckets(renumbered: (UInt64) -> UInt64 = { $0 }) -> [(bucket: Int, blob: [UInt8])] {
        var made: [UInt64] = []
        made.reserveCapacity(words.count)
        for key in words { made.append(renumbered(key)) }
        let buckets = made.map(Self.bucket)
        let order = made.indices.sorted { (buckets[$0], made[$0]) < (buckets[$1], made[$1]) }
        // Each key's chats side by side: where each key's run starts, then every chat put in
        // its key's run, in the order added.
        var starts = [Int](repeating: 0, count: words.count + 1)
        for key in postingWords { starts[Int(key) + 1] += 1 }
        for index in words.indices { starts[index + 1] += starts[index] }
        var next = starts
        var chats = [UInt32](repeating: 0, count: postingChats.count)
        for (key, chat) in zip(postingWords, postingChats) {
            chats[next[Int(key)]] = chat
            next[Int(key)] += 1
        }
        next = []
        var result: [(bucket: Int, blob: [UInt8])] = []
        var blob: [UInt8] = []
        var current = -1
        for index in order {
            let word = made[index]
            let bucket = buckets[index]
            if bucket != current {
                if current >= 0 { result.append((current, blob)) }
                current = bucket
                blob = []
            }
            withUnsafeBytes(of: word.littleEndian) { blob.append(contentsOf: $0) }
            // A blob holds each word's chats ascending, as gaps, each once; the chats of a
            // batch come in the order they were read, which need not be their numbers' (a chat
            // indexed before keeps its number), so each run is put in order here.
            chats[starts[index]..<starts[index + 1]].sort()
            var count = 0
            var previous: UInt32?
            for chat in chats[starts[index]..<starts[index + 1]] where chat != previous {
                count += 1
                previous = chat
            }
            Self.appendVarint(UInt64(count), to: &blob)
            var last: UInt32 = 0
            previous = nil
            for chat in chats[starts[index]..<starts[index + 1]] where chat != previous {
                Self.appendVarint(UInt64(chat &- last), to: &blob)
                last = chat
                previous = chat
            }
        }
        if current >= 0 { result.append((current, blob)) }
        return result
    }

    /// The blob of one bucket holding `pairs`, sorted by word and then chat (a pair given
    /// twice is kept once): what ``buckets(renumbered:)`` writes for the same postings.
    static func blob(sorted pairs: [(word: UInt64, chat: UInt32)]) -> [UInt8] {
        var blob: [UInt8] = []
        var start = 0
        while start < pairs.count {
            let word = pairs[start].word
            var end = start
            var chats: [UInt32] = []
            while end < pairs.count, pairs[end].word == word {
                if chats.last != pairs[end].chat { chats.append(pairs[end].chat) }
                end += 1
            }
            withUnsafeBytes(of: word.littleEndian) { blob.append(contentsOf: $0) }
            appendVarint(UInt64(chats.count), to: &blob)
            var previous: UInt32 = 0
            for chat in chats {
                appendVarint(UInt64(chat &- previous), to: &blob)
                previous = chat
            }
            start = end
        }
        return blob
    }

    /// The chats that hold the word `word` in `blob` (a bucket's blob), or an empty list;
    /// `nil` when the blob is not one this type wrote (damage).
    static func chats(holding word: UInt64, in blob: [UInt8]) -> [UInt32]? {
        guard let entries = entries(in: blob) else { return nil }
        return entries.first { $0.word == word }?.chats ?? []
    }

    /// Every entry of `blob` (a bucket's blob): each word with the chats that hold it; `nil`
    /// when the blob is not one this type wrote (damage).
    static func entries(in blob: [UInt8]) -> [(word: UInt64, chats: [UInt32])]? {
        blob.withUnsafeBufferPointer { bytes -> [(word: UInt64, chats: [UInt32])]? in
            var entries: [(word: UInt64, chats: [UInt32])] = []
            var index = 0
            while index < bytes.count {
                guard index + 8 <= bytes.count else { return nil }
                var word: UInt64 = 0
                for offset in 0..<8 { word |= UInt64(bytes[index + offset]) << (8 * offset) }
                index += 8
                guard let count = varint(bytes, &index), count <= UInt64(bytes.count) else { return nil }
                var list: [UInt32] = []
                list.reserveCapacity(Int(count))
                var chat: UInt64 = 0
                for _ in 0..<count {
                    guard let gap = varint(bytes, &index) else { return nil }
                    chat &+= gap
                    guard chat <= UInt64(UInt32.max) else { return nil }
                    list.append(UInt32(chat))
                }
                entries.append((word, list))
            }
            return entries
        }
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for (index, word) in words.enumerated() {
            var slot = Int(truncatingIfNeeded: Words.mix(word)) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index)
        }
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    static func varint(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, shift < 64 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
