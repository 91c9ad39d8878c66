import Testing

@testable import KeepEngines

@Suite("The server-sent events parser")
struct ServerSentEventParserTests {
    typealias Event = ServerSentEventParser.Event

    /// A stream with everything a server may send: comments, keep-alives, CRLF and CR line
    /// ends, a multi-line event, a named event, a field without a colon, text in many scripts.
    static let stream =
        "\u{FEFF}: hello, this is a comment\r\n\r\n"
        + "data: {\"a\":1}\r\n\r\n"
        + ":keep-alive\n\n"
        + "data:no space\rdata:  two spaces\r\r"
        + "event: error\ndata: line one\ndata: line two\nid: 7\nretry: 100\n\n"
        + "data\n\n"
        + "data: héllo wörld 🙂 中文\n\n"
        + "data: [DONE]\n\n"

    static let events = [
        Event(data: "{\"a\":1}"), Event(data: "no space\n two spaces"),
        Event(type: "error", data: "line one\nline two"), Event(data: ""), Event(data: "héllo wörld 🙂 中文"),
        Event(data: "[DONE]"),
    ]

    @Test("a whole stream fed at once gives every event, in order")
    func wholeStream() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array(Self.stream.utf8)) == Self.events)
    }

    @Test("the stream cut in two at any byte gives the same events")
    func cutInTwo() {
        let bytes = Array(Self.stream.utf8)
        // Every cut: a CR and its LF apart, a UTF-8 character split, a field name cut short.
        for cut in 0...bytes.count {
            var parser = ServerSentEventParser()
            #expect(parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...]) == Self.events, "cut at \(cut)")
        }
    }

    @Test("the stream in pieces of any size gives the same events", arguments: 1...9)
    func inPieces(size: Int) {
        let bytes = Array(Self.stream.utf8)
        var parser = ServerSentEventParser()
        var events: [Event] = []
        for start in stride(from: 0, to: bytes.count, by: size) {
            events += parser.feed(bytes[start..<min(start + size, bytes.count)])
        }
        #expect(events == Self.events)
    }

    @Test("an event is handed out as soon as its blank line is in, not before")
    func eventsAsTheyComplete() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: one\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\ndata: tw".utf8)) == [Event(data: "one")])
        #expect(parser.feed(Array("o\r\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\r\n".utf8)) == [Event(data: "two")])
    }

    @Test("an event the stream never finished is never handed out")
    func unfinishedEvent() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: complete\n\ndata: cut off".utf8)) == [Event(data: "complete")])
        #expect(parser.feed(Array("\n".utf8)).isEmpty, "one line end is not the end of an event")
    }

    @Test("comments and other fields alone make no event; a byte-order mark later on is data")
    func nothingButComments() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array(": ping\n\nid: 1\n\nretry: 5\n\n".utf8)).isEmpty)
        #expect(parser.feed(Array("data: \u{FEFF}x\n\n".utf8)) == [Event(data: "\u{FEFF}x")])
    }
}
