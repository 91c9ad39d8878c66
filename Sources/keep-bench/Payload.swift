/// The bytes the scenarios store: letters and digits only (so a value is valid UTF-8 and
/// needs no escaping in JSON), varied by a seed so no two values are alike.
enum Payload {
    /// `size` bytes for `seed`.
    static func bytes(_ size: Int, seed: Int = 0) -> [UInt8] {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<size).map { _ in
            // xorshift: cheap, and enough to keep the bytes from repeating.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return alphabet[Int(state % UInt64(alphabet.count))]
        }
    }

    /// The same bytes as a string.
    static func text(_ size: Int, seed: Int = 0) -> String {
        String(decoding: bytes(size, seed: seed), as: UTF8.self)
    }

    /// `1 KiB`, `64 KiB`, `512 B`.
    static func label(_ size: Int) -> String {
        size % 1024 == 0 ? "\(size / 1024) KiB" : "\(size) B"
    }
}

extension Payload {
    /// `prefix` and `index` in six digits (`c000042`): an id every store keeps as it is.
    static func id(_ prefix: String, _ index: Int) -> String {
        let digits = String(index)
        return prefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
