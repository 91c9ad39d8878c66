import Testing

@testable import KeepPorts

@Suite("A value's finished lines")
struct ValueLinesTests {
    /// The rule as the type states it, byte by byte: up to the last newline, less the last
    /// line when it holds a NUL.
    private static func reference(_ bytes: [UInt8]) -> Int {
        guard let last = bytes.lastIndex(of: ValueLines.newline) else { return 0 }
        let start = bytes[..<last].lastIndex(of: ValueLines.newline).map { $0 + 1 } ?? 0
        return bytes[start..<last].contains(0) ? start : last + 1
    }

    @Test(
        "the finished lines are found a word at a time exactly as byte by byte: every length to 40, newlines and NULs at every place"
    )
    func agreesWithTheRule() {
        for count in 0...40 {
            for newline in -1..<count {
                for other in -1..<count {
                    for nul in [-1, max(0, count - 1), count / 2] {
                        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: count)
                        if newline >= 0 { bytes[newline] = ValueLines.newline }
                        if other >= 0 { bytes[other] = ValueLines.newline }
                        if nul >= 0, nul < count, bytes[nul] != ValueLines.newline { bytes[nul] = 0 }
                        let found = bytes.withUnsafeBufferPointer { ValueLines.finishedCount($0) }
                        #expect(found == Self.reference(bytes), "\(bytes)")
                    }
                }
            }
        }
    }

    @Test("a last line of megabytes is found whole, and one NUL in it leaves it unfinished")
    func longLastLine() {
        var bytes = Array("head\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 3_000_001) + [0x0A]
        #expect(bytes.withUnsafeBufferPointer { ValueLines.finishedCount($0) } == bytes.count)
        bytes[1_500_000] = 0
        #expect(bytes.withUnsafeBufferPointer { ValueLines.finishedCount($0) } == 5)
    }
}
