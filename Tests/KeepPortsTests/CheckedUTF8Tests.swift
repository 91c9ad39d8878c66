import Testing

@testable import KeepPorts

@Suite("Checked UTF-8")
struct CheckedUTF8Tests {
    @Test(
        "bytes become a string exactly when String(validating:) says they are UTF-8",
        arguments: [
            [], Array("chat".utf8), Array("Grüße, 世界 🙂".utf8), [0xEF, 0xBF, 0xBD],  // U+FFFD itself is valid
            [0xFF], [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98],
            [0x61, 0xF4, 0x90, 0x80, 0x80], Array("ok".utf8) + [0xC3],
        ] as [[UInt8]])
    func agreesWithTheStandardLibrary(_ bytes: [UInt8]) {
        #expect(String(checkedUTF8: bytes) == String(validating: bytes, as: UTF8.self))
    }
}
