import KeepConformance
import Testing

/// The torture's judge, on writes made up: it sees each way a key can be wrong.
@Suite("The torture's write history")
struct WriteHistoryTests {
    static let lines = [
        "ready", "begin k0 1 40 100", "ack k0 1 200", "begin k0 2 50 300", "ack k0 2 400", "begin k1 3 30 500",
    ]

    @Test(
        "a key is judged by what was acknowledged: whole, its own, not overtaken, not lost",
        arguments: [
            ("k0", MarkedValue.make(writer: 0, round: 2, size: 50), nil),
            ("k1", MarkedValue.make(writer: 0, round: 3, size: 30), nil),
            ("k1", nil, nil),
            ("k0", MarkedValue.make(writer: 0, round: 1, size: 40), "overtaken"),
            ("k0", String(MarkedValue.make(writer: 0, round: 2, size: 50).prefix(30)), "torn"),
            ("k0", nil, "gone"),
            ("k1", MarkedValue.make(writer: 0, round: 2, size: 50), "written to k0"),
            ("k0", MarkedValue.make(writer: 0, round: 9, size: 50), "no writer began"),
        ] as [(String, String?, String?)])
    func aKeyIsJudgedByWhatWasAcknowledged(_ key: String, _ value: String?, _ expected: String?) throws {
        var history = WriteHistory()
        try history.record(Self.lines, writer: 0, killedAt: 600)
        let problem = history.problem(key: key, value: value)
        if let expected {
            #expect(problem?.contains(expected) == true, "\(String(describing: problem))")
        } else {
            #expect(problem == nil)
        }
    }
}
