import KeepConformance
import KeepPorts
import Testing

@testable import KeepSealed

/// How a sealed value's records are written and opened: in records of whole lines, opened in
/// runs side by side, with the same value and the same refusals as one record at a time.
@Suite("Records of a sealed value, written in runs of lines and opened side by side")
struct SealedRecordsTests {
    static let dataKey = Array(UInt8(0)..<32)
    static let key = StorageKey(.chats, "c1")

    /// A stored value made line by line: plain lines, then records of the given plaintexts,
    /// each sealed for the offset it lands at.
    private static func stored(plain: [String] = [], records plaintexts: [String]) throws -> String {
        let sealer = try ValueSealer(dataKey: dataKey)
        var stored = plain.map { $0 + "\n" }.joined()
        for plaintext in plaintexts {
            stored += try sealer.record(Array(plaintext.utf8), for: key, at: stored.utf8.count) + "\n"
        }
        return stored
    }

    /// A stored value of records of the given plaintext bytes, each sealed for its offset.
    private static func stored(bytes plaintexts: [[UInt8]]) throws -> String {
        let sealer = try ValueSealer(dataKey: dataKey)
        var stored = ""
        for plaintext in plaintexts {
            stored += try sealer.record(plaintext, for: key, at: stored.utf8.count) + "\n"
        }
        return stored
    }

    /// The value as the rule reads it, one record after another: each record's plaintext
    /// joined, a record's unfinished last line (or a last line holding a NUL) cut where another
    /// record follows; `nil` when a record does not open.
    private static func oneAtATime(plain: [String], records plaintexts: [String]) -> String? {
        var value = Array(plain.map { $0 + "\n" }.joined().utf8)
        for (index, plaintext) in plaintexts.enumerated() {
            var bytes = Array(plaintext.utf8)
            if index < plaintexts.count - 1 {
                bytes.removeSubrange(bytes.withUnsafeBufferPointer { ValueLines.finishedCount($0) }...)
            }
            value += bytes
        }
        return String(validating: value, as: UTF8.self)
    }

    /// `stored` opened by `SealedRecords` in the runs starting at `bounds` (nil: its own
    /// runs): the text, or the number of the record that did not open.
    private static func opened(_ stored: String, runs bounds: [Int]? = nil) throws -> Result<String, RecordRefused> {
        let sealer = try ValueSealer(dataKey: dataKey)
        var stored = stored
        return stored.withUTF8 { bytes in
            var records = SealedRecords(scanning: bytes, sealer: sealer)
            let plainEnd = records.plainEnd ?? 0
            var outcome = SealedRecords.Outcome()
            let value = [UInt8](unsafeUninitializedCapacity: records.capacity) { buffer, initialized in
                let out = UnsafeMutableRawBufferPointer(buffer)
                if plainEnd > 0 { out.baseAddress?.copyMemory(from: bytes.baseAddress!, byteCount: plainEnd) }
                outcome = records.open(bytes, with: sealer, for: key, into: out, runs: bounds ?? records.runs)
                initialized = outcome.refused == nil ? records.compact(out, after: plainEnd) : 0
            }
            if let refused = outcome.refused { return .failure(RecordRefused(number: refused.number)) }
            if outcome.holdsNonText { return .failure(RecordRefused(number: 0)) }
            return .success(String(decoding: value, as: UTF8.self))
        }
    }

    private struct RecordRefused: Error, Equatable { let number: Int }

    /// Plaintexts that exercise the joining rules: finished lines, unfinished last lines, a
    /// record of nothing, a finished last line holding a NUL, several lines in one record.
    static let plaintexts = [
        "first\n", "unfinished", "second\n", "", "two\nlines\n", "a NUL\u{0} line\n", "third\n",
        "lines, the last\nunfinished", "fourth\n", "fifth\n", "last, unfinished",
    ]

    @Test("a value of many records opened in runs side by side equals it opened one record at a time, for every split")
    func everySplitOpensAlike() throws {
        for plain in [[], ["a plain line", "another"]] {
            let stored = try Self.stored(plain: plain, records: Self.plaintexts)
            let expected = try #require(Self.oneAtATime(plain: plain, records: Self.plaintexts))
            let count = Self.plaintexts.count
            #expect(try Self.opened(stored, runs: [0, count]) == .success(expected), "one run")
            for split in 1..<count {
                #expect(try Self.opened(stored, runs: [0, split, count]) == .success(expected), "split at \(split)")
                for third in (split + 1)..<count {
                    #expect(
                        try Self.opened(stored, runs: [0, split, third, count]) == .success(expected),
                        "split at \(split) and \(third)")
                }
            }
        }
    }

    @Test("a record's unfinished last line is cut where another record follows, when that record opens in another run")
    func theCutAcrossASplit() throws {
        let plaintexts = ["kept\n", "cut here\nthis is cut", "after\n"]
        let stored = try Self.stored(records: plaintexts)
        #expect(try Self.opened(stored, runs: [0, 2, 3]) == .success("kept\ncut here\nafter\n"))
        #expect(try Self.opened(stored, runs: [0, 1, 3]) == .success("kept\ncut here\nafter\n"))
    }

    @Test("a record that does not open refuses the value by its number, in whichever run, the first of several named")
    func aFailureInAnyRunIsNamed() throws {
        let good = try Self.stored(plain: ["plain"], records: Self.plaintexts)
        var lines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Line 8 is the seventh record; line 10 the ninth. A byte changed in the middle of each.
        for number in [8, 10] {
            var line = Array(lines[number - 1].utf8)
            line[line.count / 2] = line[line.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            lines[number - 1] = String(decoding: line, as: UTF8.self)
        }
        let count = Self.plaintexts.count
        let altered = lines.joined(separator: "\n")
        for bounds in [[0, count], [0, 3, count], [0, 8, count], [0, 7, 9, count]] {
            #expect(try Self.opened(altered, runs: bounds) == .failure(RecordRefused(number: 8)), "\(bounds)")
        }
        let laterOnly = good.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map {
            $0.offset == 9 ? String(lines[9]) : String($0.element)
        }.joined(separator: "\n")
        #expect(try Self.opened(laterOnly, runs: [0, 3, count]) == .failure(RecordRefused(number: 10)))
    }

    @Test("a value's records open in runs only past twice 128 KiB, each run starting where a record does")
    func runsOnlyForLargeValues() throws {
        let sealer = try ValueSealer(dataKey: Self.dataKey)
        let small = try Self.stored(records: Array(repeating: String(repeating: "s", count: 1000) + "\n", count: 100))
        var large = try Self.stored(records: Array(repeating: String(repeating: "l", count: 4000) + "\n", count: 300))
        var smallText = small
        #expect(smallText.withUTF8 { SealedRecords(scanning: $0, sealer: sealer).runs } == [0, 100])
        let runs = large.withUTF8 { SealedRecords(scanning: $0, sealer: sealer).runs }
        #expect(runs.count == SealedRecords.parts + 1 && runs.first == 0 && runs.last == 300)
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $0 < $1 })
        let one = try Self.stored(records: [String(repeating: "o", count: 1_000_000)])
        var oneText = one
        #expect(oneText.withUTF8 { SealedRecords(scanning: $0, sealer: sealer).runs } == [0, 1], "one record, one run")
    }

    @Test("a written value is sealed in records of whole lines of at most 64 KiB, a longer line a record of its own")
    func writeSealsRunsOfLines() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: [.chats])
        let line = String(repeating: "x", count: 999) + "\n"
        let long = String(repeating: "y", count: 100_000) + "\n"
        let value = String(repeating: line, count: 150) + long + String(repeating: line, count: 10) + "unfinished"
        try await store.write(Self.key, value)
        #expect(try await store.reading(Self.key) == SealedReading(value: value, state: .sealed))
        let raw = try #require(try await inner.read(Self.key))
        let records = raw.split(separator: "\n")
        let sealer = try ValueSealer(dataKey: Self.dataKey)
        var offset = 0
        var plaintexts: [String] = []
        for record in records {
            var opened: [UInt8] = []
            var scratch: [UInt8] = []
            try Array(record.utf8).withUnsafeBufferPointer {
                try sealer.open($0, for: Self.key, at: offset, appendingTo: &opened, scratch: &scratch)
            }
            plaintexts.append(String(decoding: opened, as: UTF8.self))
            offset += record.utf8.count + 1
        }
        #expect(plaintexts.joined() == value)
        #expect(plaintexts.map(\.utf8.count) == [65_000, 65_000, 20_000, 100_001, 10_010])
        #expect(plaintexts.dropLast().allSatisfy { $0.hasSuffix("\n") }, "every record but the last ends its line")
    }

    @Test("the empty value is written as one record of nothing, and reads as sealed")
    func theEmptyValue() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: [.chats])
        try await store.write(Self.key, "")
        let raw = try #require(try await inner.read(Self.key))
        #expect(raw.split(separator: "\n").count == 1 && raw.hasSuffix("\n"))
        #expect(try await store.reading(Self.key) == SealedReading(value: "", state: .sealed))
    }

    @Test("a long value reads back as written, sealed whole, partly sealed, or as one record an earlier version wrote")
    func longValuesReadBack() async throws {
        var generator = SeededGenerator(seed: 24)
        let lines = (0..<2_000).map { number in
            "turn \(number) " + String(repeating: "é", count: Int.random(in: 0...1200, using: &generator)) + "\n"
        }
        let value = lines.joined()
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: [.chats])
        try await store.write(Self.key, value)
        #expect(try await store.reading(Self.key) == SealedReading(value: value, state: .sealed))
        // Plain lines, then a long run of records appended after them.
        let partly = StorageKey(.chats, "partly")
        try await inner.write(partly, lines[0] + lines[1])
        for line in lines[2..<400] { #expect(try await store.append(partly) { _ in String(line.dropLast()) }) }
        #expect(try await store.reading(partly) == SealedReading(value: lines[..<400].joined(), state: .partlySealed))
        // The whole value as one record, as `write` sealed it before it sealed runs of lines.
        let whole = StorageKey(.chats, "whole")
        let sealer = try ValueSealer(dataKey: Self.dataKey)
        try await inner.write(whole, try sealer.record(Array(value.utf8), for: whole, at: 0) + "\n")
        #expect(try await store.reading(whole) == SealedReading(value: value, state: .sealed))
    }

    @Test("a long value whose record far into it is altered is refused by that record's number, quoting no byte")
    func aLongValueRefusedByNumber() async throws {
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: [.chats])
        let value = (0..<40).map { "line \($0) " + String(repeating: "z", count: 20_000) + "\n" }.joined()
        try await store.write(Self.key, value)
        var records = try #require(try await inner.read(Self.key)).split(separator: "\n").map(String.init)
        #expect(records.count == 14)
        var altered = Array(records[11].utf8)
        altered[100] = altered[100] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        records[11] = String(decoding: altered, as: UTF8.self)
        try await inner.write(Self.key, records.joined(separator: "\n") + "\n")
        let error = try #require(
            await #expect(throws: StorageError.self) { try await store.read(Self.key) })
        #expect(error.code == .corrupt)
        #expect(error.description.contains("record 12 did not open"))
        #expect(!error.description.contains("zzzz") && !error.description.contains(records[11].prefix(40)))
    }

    @Test("a record that holds bytes that are not UTF-8 refuses the value, in any run, unless a record does not open")
    func notTextIsRefused() async throws {
        let line = Array(String(repeating: "t", count: 30_000).utf8) + [0x0A]
        // A lone continuation byte in the eleventh of twenty records, which open in runs.
        var plaintexts = Array(repeating: line, count: 20)
        plaintexts[10][5] = 0x80
        let stored = try Self.stored(bytes: plaintexts)
        #expect(try Self.opened(stored, runs: [0, 20]) == .failure(RecordRefused(number: 0)))
        #expect(try Self.opened(stored, runs: [0, 5, 20]) == .failure(RecordRefused(number: 0)))
        #expect(try Self.opened(stored, runs: [0, 11, 20]) == .failure(RecordRefused(number: 0)))
        let inner = MemoryStorage()
        let store = try SealedStorage(inner, dataKey: Self.dataKey, sealing: [.chats])
        try await inner.write(Self.key, stored)
        let error = try #require(await #expect(throws: StorageError.self) { try await store.read(Self.key) })
        #expect(error.code == .corrupt && error.description.contains("what its records hold is not text"))
        // A record that does not open, later in the value, is what the refusal names.
        var records = stored.split(separator: "\n").map(String.init)
        records[15] = String(records[15].dropLast(4)) + "AAAA"
        try await inner.write(Self.key, records.joined(separator: "\n") + "\n")
        let later = try #require(await #expect(throws: StorageError.self) { try await store.read(Self.key) })
        #expect(later.description.contains("record 16 did not open"))
        // Its pair: the same records, all text, open.
        plaintexts[10][5] = UInt8(ascii: "t")
        try await inner.write(Self.key, try Self.stored(bytes: plaintexts))
        #expect(try await store.read(Self.key) == String(decoding: plaintexts.joined(), as: UTF8.self))
    }
}
