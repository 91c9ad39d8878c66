/// The distinct trigrams of some folded text: every run of three scalars, each trigram one
/// 63-bit key (three 21-bit scalars), gathered without repeats.
///
/// The chat index keeps, for each trigram, which chats hold it; a search for text of three
/// scalars or more need only read the chats that hold all of its trigrams. The set is an
/// open-addressed table of keys that keeps the order keys first came in, so it is cheap
/// to fill from a chat's messages, to walk, and to empty for the next chat.
struct Trigrams {
    /// The keys in the order they were first added.
    private(set) var keys: [UInt64] = []
    /// Slots of the table: a key plus one (0 is empty).
    private var slots: [UInt64]
    private var mask: Int

    init(capacity: Int = 4096) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        keys.reserveCapacity(capacity)
    }

    /// How many distinct trigrams the set holds.
    var count: Int { keys.count }

    /// The key of the trigram `a b c`.
    static func key(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt64 {
        UInt64(a & 0x1F_FFFF) << 42 | UInt64(b & 0x1F_FFFF) << 21 | UInt64(c & 0x1F_FFFF)
    }

    /// Adds every trigram of `scalars` (folded text; fewer than three scalars add none).
    mutating func add(_ scalars: [UInt32]) {
        guard scalars.count >= 3 else { return }
        // A piece at a time, the table grown first to take every key of the piece, so the
        // loop below works on the table's memory directly (no check per key).
        let piece = 4096
        var start = 0
        while start + 2 < scalars.count {
            let end = min(scalars.count, start + piece + 2)
            while (keys.count + end - start) * 2 > slots.count { grow() }
            var table = slots
            slots = []
            scalars[start..<end].withUnsafeBufferPointer { text in
                table.withUnsafeMutableBufferPointer { table in
                    var key = UInt64(text[0] & 0x1F_FFFF) << 21 | UInt64(text[1] & 0x1F_FFFF)
                    for index in 2..<text.count {
                        key = (key << 21 | UInt64(text[index] & 0x1F_FFFF)) & 0x7FFF_FFFF_FFFF_FFFF
                        let stored = key &+ 1
                        var slot = Int(truncatingIfNeeded: Self.mix(key)) & mask
                        while true {
                            let held = table[slot]
                            if held == stored { break }
                            if held == 0 {
                                table[slot] = stored
                                keys.append(key)
                                break
                            }
                            slot = (slot + 1) & mask
                        }
                    }
                }
            }
            slots = table
            start = end - 2
        }
    }

    /// Adds one key.
    mutating func insert(_ key: UInt64) {
        let stored = key &+ 1
        var slot = Int(truncatingIfNeeded: Self.mix(key)) & mask
        while true {
            let held = slots[slot]
            if held == stored { return }
            if held == 0 { break }
            slot = (slot + 1) & mask
        }
        slots[slot] = stored
        keys.append(key)
        if keys.count * 2 > slots.count { grow() }
    }

    /// Whether `key` is in the set.
    func contains(_ key: UInt64) -> Bool {
        let stored = key &+ 1
        var slot = Int(truncatingIfNeeded: Self.mix(key)) & mask
        while true {
            let held = slots[slot]
            if held == stored { return true }
            if held == 0 { return false }
            slot = (slot + 1) & mask
        }
    }

    /// Empties the set, keeping its room.
    mutating func removeAll() {
        if keys.count * 8 < slots.count {
            // Few keys: clearing their slots is cheaper than clearing the table.
            for key in keys {
                var slot = Int(truncatingIfNeeded: Self.mix(key)) & mask
                while slots[slot] != 0 {
                    slots[slot] = 0
                    slot = (slot + 1) & mask
                }
            }
        } else {
            for index in slots.indices { slots[index] = 0 }
        }
        keys.removeAll(keepingCapacity: true)
    }

    private mutating func grow() {
        let old = keys
        slots = [UInt64](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        keys.removeAll(keepingCapacity: true)
        for key in old { insert(key) }
    }

    /// A 64-bit finaliser (from SplitMix64): neighbouring keys land far apart.
    static func mix(_ key: UInt64) -> UInt64 {
        var value = key &+ 0x9E37_79B9_7F4A_7C15
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
