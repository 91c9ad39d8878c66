import Foundation
import KeepPorts
import KeepSealed
import Synchronization

@testable import KeepKeptData

/// Records for store tests: sealed-looking payloads (a store never opens one) and
/// subjects, each distinct, so a test can tell which record came back.
enum KeptSamples {
    /// A subject hash of 32 bytes, all `byte`.
    static func subject(_ byte: UInt8) throws -> SubjectHash {
        try SubjectHash(bytes: Array(repeating: byte, count: SubjectHash.byteCount))
    }

    /// A subject no sample uses.
    static let nobody: SubjectHash = {
        do { return try subject(0) } catch { preconditionFailure("32 bytes make a subject hash") }
    }()

    /// A payload in the sealed format whose bytes carry `tag`, so each is distinct.
    static func sealed(_ tag: String) throws -> SealedPayload {
        try SealedPayload(bytes: [1] + Array(repeating: 0xA5, count: 28) + Array(tag.utf8))
    }

    static func record(
        _ kind: String, about subject: SubjectHash?, at milliseconds: Int64, version: Int = 1, tag: String? = nil
    ) throws -> KeptRecord {
        KeptRecord(
            kind: kind, subject: subject, shapeVersion: version, at: KeptInstant(millisecondsSince1970: milliseconds),
            sealed: try sealed(tag ?? "\(kind)@\(milliseconds)v\(version)"))
    }
}

/// A clock a test sets and moves by hand: no sleeps, no waiting for time to pass.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The clock as the keepers take it.
    var reading: @Sendable () -> Date { { self.now } }
}
