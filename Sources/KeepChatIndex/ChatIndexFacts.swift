import Foundation
import KeepCore
import KeepFileStore
import KeepPorts
import KeepSQLite

/// What the chat index keeps of a chat besides its id, title and engine, in one `BLOB` of
/// fixed layout: seven 64-bit little-endian fields, in this order: the file's size,
/// modification time and inode, the chat's creation and update times (the bits of their
/// seconds since 1970 as a `Double`), its message count, and the flags (1: the index holds
/// its words; 2: it was settled when indexed).
///
/// One column rather than seven: a listing reads every row, and SQLite's cost per row is
/// mostly its cost per column read. A blob of any other length is damage, and rebuilds the
/// index like any other.
struct ChatIndexFacts: Equatable {
    let stamp: ValueStamp
    let created: Date
    let updated: Date
    let messages: Int
    let hasText: Bool
    let settled: Bool

    /// The blob's length.
    static let byteCount = 7 * 8

    init(stamp: ValueStamp, created: Date, updated: Date, messages: Int, hasText: Bool, settled: Bool) {
        self.stamp = stamp
        self.created = created
        self.updated = updated
        self.messages = messages
        self.hasText = hasText
        self.settled = settled
    }

    /// The facts of a chat summarised as `summary`, read from a file of `stamp`.
    init(_ summary: ChatSummary, stamp: ValueStamp, hasText: Bool, settled: Bool) {
        self.init(
            stamp: stamp, created: summary.created, updated: summary.updated, messages: summary.messageCount,
            hasText: hasText, settled: settled)
    }

    /// The facts a blob holds; throws a mismatch for a blob of another length.
    init(_ blob: [UInt8]) throws(SQLiteError) {
        let facts = blob.withUnsafeBytes { bytes in Result { () throws(SQLiteError) in try ChatIndexFacts(bytes) } }
        self = try facts.get()
    }

    /// The facts the bytes of a blob hold; throws a mismatch for a blob of another length.
    init(_ blob: UnsafeRawBufferPointer) throws(SQLiteError) {
        guard blob.count == Self.byteCount else {
            throw SQLiteError(
                operation: "read index", path: nil, extendedCode: 20,
                message: "a chat's facts are \(blob.count) bytes, not \(Self.byteCount)", code: .mismatch)
        }
        func field(_ number: Int) -> Int64 {
            Int64(littleEndian: blob.loadUnaligned(fromByteOffset: number * 8, as: Int64.self))
        }
        let fields = (field(0), field(1), field(2), field(3), field(4), field(5), field(6))
        stamp = ValueStamp(size: fields.0, modified: fields.1, inode: UInt64(bitPattern: fields.2))
        created = Date(timeIntervalSince1970: Double(bitPattern: UInt64(bitPattern: fields.3)))
        updated = Date(timeIntervalSince1970: Double(bitPattern: UInt64(bitPattern: fields.4)))
        messages = Int(fields.5)
        hasText = fields.6 & 1 != 0
        settled = fields.6 & 2 != 0
    }

    /// The blob of these facts.
    var blob: [UInt8] {
        let fields: [Int64] = [
            stamp.size, stamp.modified, Int64(bitPattern: stamp.inode),
            Int64(bitPattern: created.timeIntervalSince1970.bitPattern),
            Int64(bitPattern: updated.timeIntervalSince1970.bitPattern), Int64(messages),
            (hasText ? 1 : 0) | (settled ? 2 : 0),
        ]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for field in fields { withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) } }
        return bytes
    }
}
