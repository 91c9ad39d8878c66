/// Hides the key in text that arrives in pieces (a streamed answer): every occurrence of
/// the key becomes ``ServerText/hiddenKey``, even one split across pieces.
///
/// A server that echoes the key into an answer must not get it shown on a terminal or
/// kept in a chat. The matching is on UTF-8 bytes (Knuth–Morris–Pratt, so each byte is
/// looked at a bounded number of times however the server repeats the key's start): bytes
/// that could still be the start of the key are held back until the next piece says
/// whether they are, so ``feed(_:)`` may answer less than it was given, and ``finish()``
/// answers what was held back at the end. A key is valid UTF-8, so a match starts and ends
/// on whole characters and what is answered is always whole characters.
package struct KeyRedactor: Sendable {
    /// The key itself, read byte by byte: no copy of it is made.
    private let key: APIKey?
    private let count: Int
    /// For each length `q` of a matched prefix, the length of the longest proper prefix of
    /// the key that is also a suffix of those `q` bytes (the KMP failure table).
    private let fallback: [Int]
    /// How many bytes of the key the text seen so far ends with (all held back).
    private var matched = 0

    /// A redactor for `key`; one for no key (or an empty one) hands text on as it is.
    package init(hiding key: APIKey?) {
        self.key = key
        count = key?.count ?? 0
        var table = [Int](repeating: 0, count: max(count, 1))
        key?.withBytes { bytes in
            var length = 0
            for index in bytes.indices.dropFirst() {
                while length > 0, bytes[index] != bytes[length] { length = table[length - 1] }
                if bytes[index] == bytes[length] { length += 1 }
                table[index] = length
            }
        }
        fallback = table
    }

    /// What of `piece` can be shown now, the key hidden; bytes that may begin the key are
    /// held back for the next piece.
    package mutating func feed(_ piece: String) -> String {
        guard let key, count > 0 else { return piece }
        var out: [UInt8] = []
        out.reserveCapacity(piece.utf8.count + matched)
        key.withBytes { key in
            for byte in piece.utf8 {
                while matched > 0, key[matched] != byte {
                    // The held bytes that can no longer begin the key are the text's own.
                    let kept = fallback[matched - 1]
                    out.append(contentsOf: key[0..<(matched - kept)])
                    matched = kept
                }
                if key[matched] == byte {
                    matched += 1
                    if matched == count {
                        out.append(contentsOf: ServerText.hiddenKey.utf8)
                        matched = 0
                    }
                } else {
                    out.append(byte)
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes held back at the end of the text: they were not the key.
    package mutating func finish() -> String {
        defer { matched = 0 }
        guard let key, matched > 0 else { return "" }
        return key.withBytes { String(decoding: $0[0..<matched], as: UTF8.self) }
    }

    /// `text` with every occurrence of the key hidden, at once.
    package static func hiding(_ key: APIKey?, in text: String) -> String {
        var redactor = KeyRedactor(hiding: key)
        return redactor.feed(text) + redactor.finish()
    }
}
