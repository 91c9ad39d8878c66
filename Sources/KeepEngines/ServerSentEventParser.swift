/// Reads a `text/event-stream` incrementally: feed it bytes as they arrive, in pieces of
/// any size, and it hands back each event as soon as its closing blank line is in.
///
/// What it follows of the server-sent events format:
///
/// - A line ends with LF, CRLF or a lone CR, also when the CR and the LF come in
///   different pieces; a UTF-8 character split between pieces is joined before decoding.
/// - A line starting with `:` is a comment (servers send them as keep-alives) and is ignored.
/// - `field: value` (one space after the colon dropped) and `field` alone; `data` lines of
///   one event are joined with newlines, `event` names its type, other fields are ignored.
/// - A blank line ends an event; an event with no `data` line is not an event.
/// - A byte-order mark at the very start is dropped.
///
/// An event not closed by a blank line when the stream ends is incomplete and is never
/// handed out.
package struct ServerSentEventParser: Sendable {
    /// One event: its type (`nil` when it named none) and its data.
    package struct Event: Sendable, Equatable {
        /// The event's type (its `event` field), or `nil` when it named none.
        package let type: String?
        /// The event's `data` lines, joined with newlines.
        package let data: String

        /// The event of `type` carrying `data`.
        package init(type: String? = nil, data: String) {
            self.type = type
            self.data = data
        }
    }

    private var line: [UInt8] = []
    private var dataLines: [String] = []
    private var type: String?
    /// The last byte fed was a CR: an LF right after it ends no second line.
    private var afterCR = false
    private var atStart = true

    /// A parser at the start of a stream.
    package init() {}

    /// The events completed by `bytes`, in order.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n") where afterCR:
                afterCR = false
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                afterCR = byte == UInt8(ascii: "\r")
                if let event = endLine() { events.append(event) }
            default:
                afterCR = false
                line.append(byte)
            }
        }
        return events
    }

    /// Handles the line just ended; answers the event a blank line completes.
    private mutating func endLine() -> Event? {
        var text = String(decoding: line, as: UTF8.self)
        line.removeAll(keepingCapacity: true)
        if atStart {
            atStart = false
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        }
        if text.isEmpty {
            defer {
                dataLines.removeAll()
                type = nil
            }
            guard !dataLines.isEmpty else { return nil }
            return Event(type: type, data: dataLines.joined(separator: "\n"))
        }
        if text.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "data": dataLines.append(String(value))
        case "event": type = String(value)
        default: break
        }
        return nil
    }
}
