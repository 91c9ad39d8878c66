import Foundation
import KeepConformance
import Testing

@testable import KeepCore

@Suite("Chat times")
struct UTCTimeTests {
    @Test("a chat time is written as ISO 8601 writes it, and reads back to the millisecond")
    func roundTripMatchesISO8601() throws {
        var random = SeededGenerator(seed: 0x7157)
        let style = Date.ISO8601FormatStyle()
        // From 1970 to 9999, with the edges and leap days among them.
        let edges: [Int64] = [0, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, 253_402_300_799_999]
        let samples = edges + (0..<20_000).map { _ in Int64.random(in: 0...253_402_300_799_999, using: &random) }
        for milliseconds in samples {
            let text = UTCTime.text(milliseconds: milliseconds)
            let seconds = Date(timeIntervalSince1970: Double(milliseconds / 1000))
            #expect(text == style.format(seconds).dropLast() + "." + text.suffix(4), "\(milliseconds)")
            #expect(UTCTime.milliseconds(text) == milliseconds, "\(text)")
            // Foundation reads the same instant from the seconds part.
            let whole = String(text.prefix(19)) + "Z"
            #expect(try style.parse(whole) == seconds, "\(whole)")
        }
    }

    @Test(
        "a time that is not exactly UTC ISO 8601, or names no real instant, is refused",
        arguments: [
            "2025-06-15T15:06:40+02:00", "2025-06-15T15:06:40.Z", "2025-06-15 15:06:40Z", "15:06:40",
            "2025-06-15t15:06:40Z", "2025-06-15T15:06:40z", "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z",
            "2025-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2025-04-31T00:00:00Z", "2025-06-15T24:00:00Z",
            "2025-06-15T23:60:00Z", "2025-06-15T23:59:60Z", "2025-06-15T15:06:40.1a2Z", "+2025-06-15T15:06:40Z",
            "2025-6-15T15:06:40Z", "２０２５-06-15T15:06:40Z", "2025-06-15T15:06:40", "", "Z",
        ])
    func refused(_ text: String) {
        #expect(UTCTime.milliseconds(text) == nil)
    }

    @Test(
        "a fraction of any length reads to the millisecond, and a leap day reads",
        arguments: [
            ("2025-06-15T15:06:40Z", Int64(1_750_000_000_000)), ("2025-06-15T15:06:40.5Z", 1_750_000_000_500),
            ("2025-06-15T15:06:40.123456789Z", 1_750_000_000_123), ("2024-02-29T00:00:00.000Z", 1_709_164_800_000),
            ("2000-02-29T12:00:00Z", 951_825_600_000),
        ])
    func accepted(_ text: String, _ milliseconds: Int64) {
        #expect(UTCTime.milliseconds(text) == milliseconds)
    }

    @Test(
        "a time outside the four-digit years is written with every digit and its sign",
        arguments: [
            (Int64(-62_167_219_200_001), "-0001-12-31T23:59:59.999Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
        ])
    func outsideFourDigitYears(_ milliseconds: Int64, _ text: String) {
        #expect(UTCTime.text(milliseconds: milliseconds) == text)
    }
}
