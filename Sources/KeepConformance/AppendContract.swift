import KeepPorts
import Synchronization

/// The append contract: what `StoragePort.append` promises, on any adapter, as rules a
/// test runs.
///
/// It is a contract of its own beside ``StorageContract`` so that an adapter written before
/// appends existed keeps passing that one; run both. The default implementation every
/// adapter inherits (a read, then a whole write) passes every case but
/// ``concurrentAppendsEachLandWhole``: it is correct for one writer at a time.
///
/// ```swift
/// @Test(arguments: AppendContract.cases)
/// func myStoreHonoursTheAppendContract(_ rule: AppendContract.Case) async throws {
///     try await rule.check { MyStore() }
/// }
/// ```
///
/// What a crash or a power cut mid-append may leave (at most an unfinished last line) is a
/// promise no in-process test can reach; the file store proves it on its simulated disk.
public enum AppendContract {
    /// A rule of the append contract, run against any ``/KeepPorts/StoragePort``.
    public typealias Case = ContractCase<any StoragePort>

    /// Every case, in the order they are documented.
    public static let cases: [Case] = [
        linesLandAfterTheValueInOrder, anAppendToAnAbsentKeyCreatesNothing, theNextAppendCutsAnUnfinishedLine,
        aLineThatIsNotOneLineIsRefused, lineIsCalledOnceWithGrowingOffsets, concurrentAppendsEachLandWhole,
    ]

    /// The case named `name`, for tests that pin one rule.
    public static func named(_ name: String) -> Case? {
        cases.first { $0.name == name }
    }

    /// After each append, `read` shows the value, then each line and its newline, in the
    /// order the appends returned; an empty value takes lines too, and a `write` afterwards
    /// replaces them all.
    public static let linesLandAfterTheValueInOrder = Case(
        "an append adds its line and a newline after the value, in the order appends return"
    ) { make, expect in
        let store = try await make()
        let key = StorageKey(.chats, "appended")
        try await store.write(key, "head\n")
        var expected = "head\n"
        for number in 1...12 {
            let line = "line \(number): ünïcödé, \"quoted\", tab\there"
            try expect.that(try await store.append(key) { _ in line }, "append \(number) answered false")
            expected += line + "\n"
            try expect.equal(try await store.read(key), expected, "read after append \(number)")
        }
        let empty = StorageKey(.drafts, "empty")
        try await store.write(empty, "")
        try expect.that(try await store.append(empty) { _ in "first" }, "an append to an empty value answered false")
        try expect.that(try await store.append(empty) { _ in "" }, "an append of an empty line answered false")
        try expect.equal(try await store.read(empty), "first\n\n", "read of an empty value after two appends")
        try await store.write(key, "replaced\n")
        try expect.equal(try await store.read(key), "replaced\n", "read of a write after appends")
    }

    /// An append to a key never written, or removed, answers `false` and leaves nothing: no
    /// value, no id listed.
    public static let anAppendToAnAbsentKeyCreatesNothing = Case(
        "an append to an absent key answers false and creates nothing"
    ) { make, expect in
        let store = try await make()
        let never = StorageKey(.chats, "never-written")
        try expect.that(
            !(try await store.append(never) { _ in "late" }), "an append to a key never written answered true")
        try expect.equal(try await store.read(never), nil, "read of a key an append was refused")
        let removed = StorageKey(.chats, "removed")
        try await store.write(removed, "there\n")
        try await store.remove(removed)
        try expect.that(!(try await store.append(removed) { _ in "late" }), "an append to a removed key answered true")
        try expect.equal(try await store.read(removed), nil, "read of a removed key after an append")
        try expect.equal(try await store.listIds(.chats), [], "listIds after refused appends")
    }

    /// Bytes after the last newline, or a last line holding a NUL, are cut by the next
    /// append; a NUL in an earlier line is not the append's to cut.
    public static let theNextAppendCutsAnUnfinishedLine = Case(
        "the next append cuts an unfinished last line, and only it"
    ) { make, expect in
        let store = try await make()
        let cases: [(value: String, after: String)] = [
            ("done\nhalf a li", "done\nnext\n"),
            ("done\nhal\u{0}\u{0}\u{0}ne\n", "done\nnext\n"),
            ("half, no newline at all", "next\n"),
            ("\u{0}\u{0}", "next\n"),
            ("a\u{0}b\ndone\n", "a\u{0}b\ndone\nnext\n"),
        ]
        for (index, (value, after)) in cases.enumerated() {
            let key = StorageKey(.cache, "torn-\(index)")
            try await store.write(key, value)
            try expect.that(try await store.append(key) { _ in "next" }, "append \(index) answered false")
            try expect.equal(try await store.read(key), after, "read after appending to value \(index)")
        }
    }

    /// A line with a newline or a NUL in it is refused with an error, and the value is left
    /// as it was.
    public static let aLineThatIsNotOneLineIsRefused = Case(
        "a line holding a newline or a NUL is refused, and nothing is written"
    ) { make, expect in
        let store = try await make()
        let key = StorageKey(.chats, "refusing")
        try await store.write(key, "kept\n")
        for bad in ["two\nlines", "nul\u{0}inside", "\n"] {
            try await expect.throwsError(StorageError.self, "appending \(bad.utf8.count) bytes that are not one line") {
                _ = try await store.append(key) { _ in bad }
            }
            try expect.equal(try await store.read(key), "kept\n", "read after a refused line")
        }
    }

    /// `line` is called exactly once per append, and every append's offset lies past the
    /// offset of every line before it in the value.
    public static let lineIsCalledOnceWithGrowingOffsets = Case(
        "an append calls line once, with an offset past every earlier line's"
    ) { make, expect in
        let store = try await make()
        let key = StorageKey(.chats, "offsets")
        try await store.write(key, "head\n")
        var previous = -1
        for number in 0..<6 {
            let calls = CallLog()
            _ = try await store.append(key) { offset in
                calls.record(offset)
                return "line \(number)"
            }
            let offsets = calls.offsets
            try expect.equal(offsets.count, 1, "how often line was called by append \(number)")
            try expect.that(offsets[0] > previous, "append \(number)'s offset \(offsets[0]) is not past \(previous)")
            previous = offsets[0]
        }
    }

    /// Eight writers append ten lines each to one key at once: every line is there once,
    /// whole, and each writer's lines are in the order it appended them.
    public static let concurrentAppendsEachLandWhole = Case(
        "concurrent appends to one key each land whole"
    ) { make, expect in
        let store = try await make()
        let key = StorageKey(.chats, "contended-appends")
        try await store.write(key, "head\n")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for round in 0..<10 { _ = try await store.append(key) { _ in Self.line(writer, round) } }
                }
            }
            try await group.waitForAll()
        }
        let lines = (try await store.read(key) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        try expect.equal(lines.first.map(String.init), "head", "the value's first line")
        try expect.equal(lines.last.map(String.init), "", "what follows the last newline")
        let appended = lines.dropFirst().dropLast().map(String.init)
        try expect.equal(appended.count, 80, "how many of 80 appended lines the value holds")
        for writer in 0..<8 {
            let own = appended.filter { $0.hasPrefix("writer \(writer) ") }
            try expect.equal(own, (0..<10).map { Self.line(writer, $0) }, "writer \(writer)'s lines, in order")
        }
    }

    private static func line(_ writer: Int, _ round: Int) -> String {
        "writer \(writer) round \(round) " + String(repeating: "x", count: 40 + writer * 13 + round)
    }
}

/// The offsets one append's `line` was called with.
private final class CallLog: Sendable {
    private let state = Mutex<[Int]>([])

    func record(_ offset: Int) { state.withLock { $0.append(offset) } }

    var offsets: [Int] { state.withLock { $0 } }
}
