import KeepConformance

/// What one writer did to the kept-data database across every round, and so what the
/// database may hold after a kill.
///
/// The writer is alone and makes one transaction at a time, so the rows are those of every
/// acknowledged transaction in order, plus, perhaps, the one it had begun when it died
/// (committed or not: the kill may land either side of the commit).
struct RowHistory {
    /// A row as kept: the sequence number of the payload sealed in it.
    typealias Rows = [Int64: Int]

    /// One transaction: insert, update or delete of row `id`, with payload `sequence`.
    struct Transaction {
        let kind: String
        let id: Int64
        let sequence: Int
    }

    /// The rows after every acknowledged transaction.
    private(set) var rows: Rows = [:]
    /// The size of every payload begun, by sequence number.
    private(set) var sizes: [Int: Int] = [:]
    private(set) var acknowledgedCount = 0
    /// The transaction the writer had begun and not seen acknowledged when it died.
    private(set) var cutShort: Transaction?

    /// Takes in one round's lines, from a writer killed after them.
    mutating func record(_ lines: [String]) throws(ChildFailure) {
        for line in lines where line != "ready" {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 5, let id = Int64(fields[2]), let sequence = Int(fields[3]) else {
                throw ChildFailure(description: "the kept writer printed \"\(line)\"")
            }
            let transaction = Transaction(kind: fields[1], id: id, sequence: sequence)
            if fields[0] == "begin", fields.count == 6, let size = Int(fields[4]) {
                sizes[sequence] = size
                cutShort = transaction
            } else if fields[0] == "ack", let begun = cutShort, begun.id == id, begun.sequence == sequence {
                Self.apply(transaction, to: &rows)
                acknowledgedCount += 1
                cutShort = nil
            } else {
                throw ChildFailure(description: "the kept writer printed \"\(line)\" out of turn")
            }
        }
    }

    /// The row sets the database may hold now: the acknowledged one, or that with the
    /// transaction cut short applied.
    var allowed: [Rows] {
        guard let cutShort else { return [rows] }
        var after = rows
        Self.apply(cutShort, to: &after)
        return [rows, after]
    }

    /// The rows found after a kill, one of ``allowed``: what the next round starts from
    /// (the transaction cut short was committed, or it was not).
    mutating func settle(on found: Rows) {
        rows = found
        cutShort = nil
    }

    private static func apply(_ transaction: Transaction, to rows: inout Rows) {
        rows[transaction.id] = transaction.kind == "delete" ? nil : transaction.sequence
    }
}
