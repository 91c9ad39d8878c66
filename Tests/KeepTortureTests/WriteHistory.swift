import KeepConformance

/// Every write the torture's writers began, across every round, and so what each key may
/// hold after a kill.
///
/// A key must hold a whole value some writer began for it, and not one an acknowledged
/// write overtook: a write acknowledged at time A is overtaken by an acknowledged write on
/// the same key that began after A (its rename came later). A write still running when its
/// writer was killed ended, at the latest, when the kill was reaped. A key some write was
/// acknowledged for is never absent (the writers never remove).
struct WriteHistory {
    /// One write: the key, the value's size, and when it began and ended (CLOCK_MONOTONIC).
    struct Write {
        let key: String
        let size: Int
        let begin: UInt64
        var end: UInt64?
        var acknowledged = false
    }

    /// A writer's write: values are `MarkedValue`s of (writer, sequence).
    struct ID: Hashable {
        let writer: Int
        let sequence: Int
    }

    private(set) var writes: [ID: Write] = [:]
    private(set) var acknowledgedCount = 0
    private var acknowledgedByKey: [String: [Write]] = [:]

    /// Takes in what writer `writer` printed before it was killed and reaped at `killedAt`.
    /// Throws when the writer reported an error or printed something unreadable.
    mutating func record(_ lines: [String], writer: Int, killedAt: UInt64) throws(ChildFailure) {
        var running: ID?
        for line in lines where line != "ready" {
            let fields = line.split(separator: " ").map(String.init)
            if fields.first == "begin", fields.count == 5, let sequence = Int(fields[2]), let size = Int(fields[3]),
                let begin = UInt64(fields[4])
            {
                let id = ID(writer: writer, sequence: sequence)
                writes[id] = Write(key: fields[1], size: size, begin: begin)
                running = id
            } else if fields.first == "ack", fields.count == 4, let sequence = Int(fields[2]),
                let end = UInt64(fields[3])
            {
                let id = ID(writer: writer, sequence: sequence)
                guard var write = writes[id], write.key == fields[1] else {
                    throw ChildFailure(description: "writer \(writer) acknowledged a write it never began: \(line)")
                }
                write.end = end
                write.acknowledged = true
                writes[id] = write
                acknowledgedByKey[write.key, default: []].append(write)
                acknowledgedCount += 1
                running = nil
            } else {
                throw ChildFailure(description: "writer \(writer) printed \"\(line)\"")
            }
        }
        if let running { writes[running]?.end = killedAt }
    }

    /// Why `value` is not something `key` may hold now, or nil.
    func problem(key: String, value: String?) -> String? {
        let acknowledged = acknowledgedByKey[key] ?? []
        guard let value else {
            return acknowledged.isEmpty
                ? nil : "\(key) is gone though \(acknowledged.count) writes to it were acknowledged"
        }
        guard let id = Self.id(of: value), let write = writes[id] else {
            return "\(key) holds \(value.utf8.count) bytes no writer began: \(value.prefix(24).debugDescription)"
        }
        if write.key != key {
            return "\(key) holds writer \(id.writer)'s value \(id.sequence), written to \(write.key)"
        }
        if let problem = MarkedValue.problem(value, size: write.size) { return "\(key) holds a torn value: \(problem)" }
        if let end = write.end, let later = acknowledged.first(where: { $0.begin > end }) {
            return
                "\(key) holds writer \(id.writer)'s value \(id.sequence), overtaken by a write acknowledged at \(later.end ?? 0)"
        }
        return nil
    }

    /// The writer and sequence a value's head names: `<w3r1000012>…`.
    private static func id(of value: String) -> ID? {
        guard value.hasPrefix("<w"), let close = value.firstIndex(of: ">") else { return nil }
        let fields = value[value.index(value.startIndex, offsetBy: 2)..<close].split(separator: "r")
        guard fields.count == 2, let writer = Int(fields[0]), let sequence = Int(fields[1]) else { return nil }
        return ID(writer: writer, sequence: sequence)
    }
}
