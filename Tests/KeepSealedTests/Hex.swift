/// Hex text to bytes and back, for test vectors written the way their documents print them.
enum Hex {
    /// The bytes of `text`, ignoring spaces; a malformed vector is a test-authoring mistake.
    static func bytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        precondition(digits.count % 2 == 0, "odd-length hex in a test vector")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(value(digits[index]) << 4 | value(digits[index + 1]))
        }
    }

    static func text(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func value(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: preconditionFailure("not a hex digit in a test vector")
        }
    }
}
