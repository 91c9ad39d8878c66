import KeepConformance
import KeepPorts

/// Every append and whole write the torture's appenders began, across every round, and so
/// what each key's lines may be after a kill.
///
/// A key's finished lines (``ValueLines``: an unfinished last line is a crash's leftover
/// and never counts) must each be whole, a line some writer began for that key, the first
/// one a whole write's. An acknowledged append's line must be there unless a write of the
/// key may have replaced it: one that had not ended (or been killed) before the append
/// began. A key some write was acknowledged for is never absent (the writers never remove).
struct AppendHistory {
    /// One operation: what, on which key, the line's size, and when it began and ended.
    struct Operation {
        let write: Bool
        let key: String
        let size: Int
        let begin: UInt64
        var end: UInt64?
        var acknowledged = false
    }

    private(set) var operations: [WriteHistory.ID: Operation] = [:]
    private(set) var acknowledgedCount = 0

    /// Takes in what writer `writer` printed before it was killed and reaped at `killedAt`.
    mutating func record(_ lines: [String], writer: Int, killedAt: UInt64) throws(ChildFailure) {
        var running: WriteHistory.ID?
        for line in lines where line != "ready" {
            let fields = line.split(separator: " ").map(String.init)
            if fields.first == "begin", fields.count == 6, fields[1] == "write" || fields[1] == "append",
                let sequence = Int(fields[3]), let size = Int(fields[4]), let begin = UInt64(fields[5])
            {
                let id = WriteHistory.ID(writer: writer, sequence: sequence)
                operations[id] = Operation(write: fields[1] == "write", key: fields[2], size: size, begin: begin)
                running = id
            } else if fields.first == "ack", fields.count == 4, let sequence = Int(fields[2]),
                let end = UInt64(fields[3])
            {
                let id = WriteHistory.ID(writer: writer, sequence: sequence)
                guard var operation = operations[id], operation.key == fields[1] else {
                    throw ChildFailure(description: "writer \(writer) acknowledged what it never began: \(line)")
                }
                operation.end = end
                operation.acknowledged = true
                operations[id] = operation
                acknowledgedCount += 1
                running = nil
            } else {
                throw ChildFailure(description: "writer \(writer) printed \"\(line)\"")
            }
        }
        if let running { operations[running]?.end = killedAt }
    }

    /// What is wrong with `value` as `key`'s value now, or nothing.
    func problems(key: String, value: String?) -> [String] {
        let mine = operations.filter { $0.value.key == key }
        let writes = mine.values.filter(\.write)
        guard let value else {
            return writes.contains(where: \.acknowledged)
                ? ["\(key) is gone though a write to it was acknowledged"] : []
        }
        var problems: [String] = []
        var present = Set<WriteHistory.ID>()
        let lines = ValueLines.finished(value).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for (number, line) in lines.enumerated() {
            guard let id = Self.id(of: line), let operation = mine[id] else {
                problems.append("\(key) line \(number + 1) is \(line.utf8.count) bytes no writer began for it")
                continue
            }
            if let problem = MarkedValue.problem(String(line), size: operation.size) {
                problems.append("\(key) line \(number + 1) is torn: \(problem)")
            }
            if number == 0, !operation.write { problems.append("\(key) begins with an appended line") }
            present.insert(id)
        }
        for (id, append) in mine where append.acknowledged && !append.write && !present.contains(id) {
            // Replaced by a write that did not end before the append began: no loss.
            let replaced = writes.contains { ($0.end ?? .max) > append.begin }
            if !replaced {
                problems.append("\(key) lost writer \(id.writer)'s acknowledged line \(id.sequence)")
            }
        }
        return problems
    }

    /// The writer and sequence a line's head names: `<w3r1000012>…`.
    private static func id(of line: Substring) -> WriteHistory.ID? {
        guard line.hasPrefix("<w"), let close = line.firstIndex(of: ">") else { return nil }
        let fields = line[line.index(line.startIndex, offsetBy: 2)..<close].split(separator: "r")
        guard fields.count == 2, let writer = Int(fields[0]), let sequence = Int(fields[1]) else { return nil }
        return WriteHistory.ID(writer: writer, sequence: sequence)
    }
}
