import KeepCore

/// The words of one chat after another, as a rebuild gathers them: each word of a chat's
/// text looked up in a snapshot of the index's vocabulary as it is read, and kept once per
/// chat by its number there; a word the snapshot does not hold is kept, once, by its bytes.
///
/// It answers what gathering the chat's words into a set of their own (``Words/add(_:folding:)``)
/// and then looking each distinct word up in the snapshot would, in the same order, without
/// the set: in text like a person's nearly every word is one the vocabulary already holds,
/// so most of a chat's words cost one lookup each and no copy.
struct ChatWords {
    /// The stored vocabulary as the pass read it: the numbers words are known by.
    private let vocabulary: Words
    /// For each word of `vocabulary`, the last chat (by ``chat``) that held it.
    private var seen: [UInt32]
    /// Which chat is being gathered: goes up by one a chat.
    private var chat: UInt32 = 0
    /// The current chat's words that `vocabulary` does not hold.
    private var unknown = Words(capacity: 256)
    private var folding = TextFolding()

    /// A gatherer numbering words as `vocabulary` does.
    init(numberedBy vocabulary: Words) {
        self.vocabulary = vocabulary
        seen = [UInt32](repeating: 0, count: vocabulary.count)
    }

    /// The words of `messages`' text, folded (a word never spans two messages): those the
    /// vocabulary holds, by their numbers there, each once, in the order first seen; and
    /// the others, each once, in the order first seen.
    mutating func words(of messages: some Sequence<ChatMessage>) -> (known: [UInt32], unknown: Words.List) {
        chat &+= 1
        if chat == 0 {
            // Every chat numbered since the last wrap is behind us: forget them all.
            for index in seen.indices { seen[index] = 0 }
            chat = 1
        }
        unknown.removeAll()
        var known: [UInt32] = []
        known.reserveCapacity(1024)
        for message in messages {
            let read = Self.gather(
                message.text, vocabulary: vocabulary, chat: chat, seen: &seen, known: &known, unknown: &unknown,
                folding: &folding)
            if !read {
                // The words of the folded text, as the reference gathers them; those already
                // gathered from this message are whole ones and stay.
                var words = Words(capacity: 64)
                words.add(folding.folded(message.text))
                for number in 0..<words.count {
                    words.word(number).withUnsafeBufferPointer { word in
                        Self.keep(
                            word, hash: words.hashes[number], key: Words.key(word), vocabulary: vocabulary, chat: chat,
                            seen: &seen, known: &known, unknown: &unknown)
                    }
                }
            }
        }
        return (known, Words.List(bytes: unknown.bytes, ends: unknown.ends, hashes: unknown.hashes))
    }

    private static func gather(
        _ text: String, vocabulary: Words, chat: UInt32, seen: inout [UInt32], known: inout [UInt32],
        unknown: inout Words, folding: inout TextFolding
    ) -> Bool {
        Words.forEachWord(of: text, folding: &folding) { word, hash, key in
            keep(
                word, hash: hash, key: key, vocabulary: vocabulary, chat: chat, seen: &seen, known: &known,
                unknown: &unknown)
        }
    }

    @inline(__always)
    private static func keep(
        _ word: UnsafeBufferPointer<UInt8>, hash: UInt64, key: UInt64, vocabulary: Words, chat: UInt32,
        seen: inout [UInt32], known: inout [UInt32], unknown: inout Words
    ) {
        if let number = vocabulary.number(of: word, hash: hash, key: key) {
            if seen[number] != chat {
                seen[number] = chat
                known.append(UInt32(truncatingIfNeeded: number))
            }
        } else {
            unknown.insert(word, hash: hash, key: key)
        }
    }
}
