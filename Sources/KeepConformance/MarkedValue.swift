/// Values that say who wrote them, so a reader can tell a whole value from a prefix, a
/// tail, or a mix of two writers' bytes.
public enum MarkedValue {
    /// Writer `writer`'s value of round `round`: a header, then `size` bytes in all of a
    /// pattern that differs for every writer and round.
    public static func make(writer: Int, round: Int, size: Int) -> String {
        let header = "<w\(writer)r\(round)>"
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let step = writer * 7 + round * 3 + 1
        var bytes = Array(header.utf8)
        bytes.reserveCapacity(size)
        var index = 0
        while bytes.count < size {
            bytes.append(alphabet[(index * step) % alphabet.count])
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Why `value` is not a whole value `make` could have produced at `size`, or nil.
    public static func problem(_ value: String, size: Int) -> String? {
        guard value.hasPrefix("<w"), let close = value.firstIndex(of: ">") else {
            return "a value of \(value.utf8.count) bytes without its header"
        }
        let fields = value[value.index(value.startIndex, offsetBy: 2)..<close].split(separator: "r")
        guard fields.count == 2, let writer = Int(fields[0]), let round = Int(fields[1]) else {
            return "a value with a garbled header"
        }
        guard value == make(writer: writer, round: round, size: size) else {
            return "writer \(writer) round \(round): \(value.utf8.count) of \(size) bytes, or mixed"
        }
        return nil
    }
}
