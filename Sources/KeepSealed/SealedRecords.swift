import Dispatch
import Foundation
import KeepPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(CCrypto)
    /// The lines of one stored value of a sealed namespace, as ``SealedStorage`` opens them:
    /// its plain lines first, if any, then its records, each with the place its plaintext
    /// takes in the opened value.
    ///
    /// A record's plaintext is as long as its base64 says (three bytes a quantum, less the
    /// padding, less the nonce and the tag), so every record's place is known before any is
    /// opened; and each record is bound to its own offset, so each opens on its own. A value
    /// whose records hold at least twice ``partBytes`` bytes is opened in runs of records
    /// side by side (``runs``), at most ``parts``, split where a record starts; a smaller one
    /// in one run, on the caller's thread, with nothing handed to another.
    ///
    /// The rules are the ones the records are read by one after another: a record's
    /// unfinished last line is cut where another record follows it (its ``Record/kept``),
    /// the value's last record is kept whole, any record that does not open refuses the
    /// value, and when several do not the first is the one named.
    struct SealedRecords {
        /// Bytes of records a run of them opens at least, when a value is opened in runs.
        static let partBytes = 128 * 1024
        /// The most runs one value is opened in: one for each processor this process may run
        /// on, up to four. (More runs than processors is slower, not faster: on two, a value
        /// opened in four runs took as long as in one.)
        static let parts = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))

        /// One record of the value.
        struct Record {
            /// Where its line starts in the stored value (the offset it is bound to).
            let start: Int
            /// Where its line ends: its newline's index.
            let end: Int
            /// Its line's number in the value, from 1: what a refusal names.
            let number: Int
            /// Where its plaintext goes in the buffer opened into.
            let place: Int
            /// Its plaintext's length, as its base64's length says.
            let count: Int
            /// How much of its plaintext the value keeps: all of it, or, when another record
            /// follows, its finished lines (set when it is opened).
            var kept: Int
        }

        /// Where the first record starts (the plain lines end), or `nil` when no line is a
        /// record.
        let plainEnd: Int?
        /// What opening records found: the first that did not open, by its number, and why;
        /// whether any that did holds bytes that are not UTF-8.
        struct Outcome {
            var refused: (number: Int, error: SealingError)?
            var holdsNonText = false

            /// The outcome of opening every run whose outcomes these are.
            init(joining runs: some Sequence<Outcome>) {
                refused = runs.compactMap(\.refused).min { $0.number < $1.number }
                holdsNonText = runs.contains { $0.holdsNonText }
            }

            init() {}
        }

        /// The records, in the order they are stored.
        private(set) var records: [Record]
        /// The number of the first line after a record that is not one, if any: no line
        /// after it is looked at, and it refuses the value unless a record before it does.
        let strayLine: Int?
        /// Bytes of the buffer the value is opened into: its plain lines and every record's
        /// plaintext.
        let capacity: Int

        /// The lines of `bytes`'s finished lines (an unfinished last line, which a crash
        /// mid-append leaves, is no line), told apart by `sealer`.
        init(scanning bytes: UnsafeBufferPointer<UInt8>, sealer: ValueSealer) {
            let finished = ValueLines.finishedCount(bytes)
            let overhead = SealedPayload.nonceCount + SealedPayload.tagCount
            var plainEnd: Int?
            var records: [Record] = []
            var strayLine: Int?
            var place = 0
            var start = 0
            var number = 0
            while start < finished {
                number += 1
                let end = Self.lineEnd(in: bytes, from: start, before: finished)
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if sealer.isRecord(line) {
                    if plainEnd == nil {
                        plainEnd = start
                        place = start
                    }
                    // A length base64 cannot have, or too short for a nonce and a tag, takes no
                    // room: the record is refused when it is opened.
                    let base64 = UnsafeBufferPointer(rebasing: line[ValueSealer.prefix.count...])
                    let count = max(0, (Base64.decodedCount(base64) ?? 0) - overhead)
                    records.append(
                        Record(start: start, end: end, number: number, place: place, count: count, kept: count))
                    place += count
                } else if plainEnd != nil {
                    strayLine = number
                    break
                }
                start = end + 1
            }
            self.plainEnd = plainEnd
            self.records = records
            self.strayLine = strayLine
            capacity = plainEnd == nil ? 0 : place
        }

        /// Where each run of records the value is opened in starts, and the end: one run
        /// when its records hold at most ``partBytes`` bytes (or it has no records), else up to
        /// ``parts`` runs of about the same bytes, each starting where a record does.
        var runs: [Int] {
            guard let first = records.first, let last = records.last else { return [0, 0] }
            let parts = min(Self.parts, (last.end - first.start) / Self.partBytes, records.count)
            guard parts > 1 else { return [0, records.count] }
            return records.withUnsafeBufferPointer { Self.bounds(of: $0, parts: parts) }
        }

        /// Opens every record of `bytes` (the value scanned) into its place in `out` (at
        /// least ``capacity`` bytes) with `sealer`, as the records of `key`, in the runs
        /// ``runs`` says: which record, by its number, was the first not to open, and whether
        /// what they hold is text.
        mutating func open(
            _ bytes: UnsafeBufferPointer<UInt8>, with sealer: ValueSealer, for key: StorageKey,
            into out: UnsafeMutableRawBufferPointer
        ) -> Outcome {
            open(bytes, with: sealer, for: key, into: out, runs: runs)
        }

        /// ``open(_:with:for:into:)`` in the runs that start at `bounds` (each but the last
        /// a run's first record, the last the records' count). Runs after the first are handed
        /// to other threads, and this one waits for them; each run has its own context and
        /// decoding buffer, and writes only its own records' places.
        mutating func open(
            _ bytes: UnsafeBufferPointer<UInt8>, with sealer: ValueSealer, for key: StorageKey,
            into out: UnsafeMutableRawBufferPointer, runs bounds: [Int]
        ) -> Outcome {
            guard let last = records.last, bounds.count >= 2 else { return Outcome() }
            return records.withUnsafeMutableBufferPointer { records in
                guard bounds.count > 2 else {
                    return sealer.open(records, of: bytes, for: key, lastOfValue: last.number, into: out)
                }
                var outcomes = [Outcome](repeating: Outcome(), count: bounds.count - 1)
                outcomes.withUnsafeMutableBufferPointer { outcomes in
                    let runs = Runs(bytes: bytes, records: records, out: out, outcomes: outcomes)
                    DispatchQueue.concurrentPerform(iterations: outcomes.count) { part in
                        runs.outcomes[part] = sealer.open(
                            UnsafeMutableBufferPointer(rebasing: runs.records[bounds[part]..<bounds[part + 1]]),
                            of: runs.bytes, for: key, lastOfValue: last.number, into: runs.out)
                    }
                }
                return Outcome(joining: outcomes)
            }
        }

        /// What the runs of one value's opening share: the stored bytes, which they only read;
        /// the records, the buffer opened into and the runs' outcomes, of which each run writes
        /// only its own records, their places and its own outcome.
        ///
        /// `@unchecked Sendable`: no byte is written by two runs, and `concurrentPerform`
        /// returns only when every run has, so nothing outlives the buffers it points into.
        private struct Runs: @unchecked Sendable {
            let bytes: UnsafeBufferPointer<UInt8>
            let records: UnsafeMutableBufferPointer<Record>
            let out: UnsafeMutableRawBufferPointer
            let outcomes: UnsafeMutableBufferPointer<Outcome>
        }

        /// The records' kept bytes in `out`, moved down over what was cut, in order, after
        /// `plainEnd` bytes of plain lines: the opened value's length.
        func compact(_ out: UnsafeMutableRawBufferPointer, after plainEnd: Int) -> Int {
            guard let base = out.baseAddress else { return 0 }
            var end = plainEnd
            for record in records {
                // Nothing moves until a record has been cut; then each later one moves down.
                if record.place != end { (base + end).copyMemory(from: base + record.place, byteCount: record.kept) }
                end += record.kept
            }
            return end
        }

        /// Where each of `parts` runs of `records` starts, and the end: each run's first
        /// record is the first to start at or past its share of the bytes. Fewer runs when a
        /// record is longer than a share.
        static func bounds(of records: UnsafeBufferPointer<Record>, parts: Int) -> [Int] {
            guard let first = records.first, let last = records.last else { return [0, 0] }
            let total = last.end - first.start
            var bounds = [0]
            var index = 0
            for part in 1..<max(1, parts) {
                let share = first.start + total / parts * part
                while index < records.count, records[index].start < share { index += 1 }
                if let previous = bounds.last, index > previous, index < records.count { bounds.append(index) }
            }
            bounds.append(records.count)
            return bounds
        }

        /// Where the line that starts at `start` ends: its newline's index, or `end`. A
        /// `memchr`, which reads a word at a time; a record can be kilobytes long.
        private static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, before end: Int) -> Int {
            guard let base = bytes.baseAddress, start < end,
                let found = memchr(base + start, Int32(ValueLines.newline), end - start)
            else { return end }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }
#endif
