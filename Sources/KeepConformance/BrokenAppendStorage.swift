import KeepPorts

/// A ``/KeepPorts/StoragePort`` whose `append` is deliberately broken, one flaw at a time, to prove the
/// append contract catches each way an append can go wrong. Everything else is correct, and
/// an append without ``AppendFlaw/lostAppend`` is one step of the actor, never interleaved.
public actor BrokenAppendStorage: StoragePort {
    private let flaw: AppendFlaw
    private var values: [StorageKey: String] = [:]

    /// An empty store whose appends have `flaw`.
    public init(_ flaw: AppendFlaw) {
        self.flaw = flaw
    }

    /// The value, as written.
    public func read(_ key: StorageKey) throws(StorageError) -> String? {
        try Self.check(key)
        return values[key]
    }

    /// Replaces the value, in one step of the actor.
    public func write(_ key: StorageKey, _ value: String) throws(StorageError) {
        try Self.check(key)
        values[key] = value
    }

    /// Removes the value; an absent one is fine.
    public func remove(_ key: StorageKey) throws(StorageError) {
        try Self.check(key)
        values[key] = nil
    }

    /// The ids with a value in `namespace`.
    public func listIds(_ namespace: Namespace) -> [String] {
        values.keys.filter { $0.namespace == namespace }.map(\.id)
    }

    /// Removes every value of `namespace`.
    public func clear(_ namespace: Namespace) {
        values = values.filter { $0.key.namespace != namespace }
    }

    /// An append as the contract asks, except as the flaw says.
    @discardableResult
    public func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        try Self.check(key)
        guard let old = values[key] ?? (flaw == .createsAbsent ? "" : nil) else { return false }
        // The correct value to add the line after, unless the flaw keeps the torn tail.
        var value = flaw == .keepsUnfinishedLine ? old : String(ValueLines.finished(old))
        let offset = flaw == .offsetAlwaysZero ? 0 : value.utf8.count
        var text = line(offset)
        if flaw == .callsLineTwice { text = line(offset) }
        if flaw != .acceptsAnyLine { try ValueLines.check(text, for: key) }
        value += text
        if flaw != .omitsNewline { value += "\n" }
        if flaw == .lostAppend {
            // Suspends between its read and its write (to flush, say), so an append made
            // meanwhile is written over.
            await Task.yield()
        }
        values[key] = value
        return true
    }

    private static func check(_ key: StorageKey) throws(StorageError) {
        if key.id.isEmpty {
            throw .invalidId(key.id, in: key.namespace, operation: "append", reason: "an id cannot be empty")
        }
    }
}

/// The ways ``BrokenAppendStorage`` can be broken.
public enum AppendFlaw: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The line goes in without its newline, so the next one joins it.
    case omitsNewline = "append_omits_newline"
    /// An append to an absent key creates it: a removed chat comes back.
    case createsAbsent = "append_creates_absent"
    /// The unfinished last line is kept, and the next line lands after it.
    case keepsUnfinishedLine = "append_keeps_unfinished_line"
    /// A line with a newline or a NUL is written as it is.
    case acceptsAnyLine = "append_accepts_any_line"
    /// Every line is told it starts at offset 0.
    case offsetAlwaysZero = "append_offset_zero"
    /// `line` is called twice.
    case callsLineTwice = "append_calls_line_twice"
    /// A read-change-write that suspends, so concurrent appends lose each other.
    case lostAppend = "append_lost"

    /// The names of the contract cases this flaw must fail, and it must pass every other:
    /// first the rule it is made to break, then any case that fails with it because it
    /// reads what the flaw wrote (without its newline, a line is an unfinished one, which
    /// the next append cuts).
    public var breaks: [String] {
        switch self {
        case .omitsNewline:
            [
                AppendContract.linesLandAfterTheValueInOrder.name,
                AppendContract.theNextAppendCutsAnUnfinishedLine.name,
                AppendContract.lineIsCalledOnceWithGrowingOffsets.name,
                AppendContract.concurrentAppendsEachLandWhole.name,
            ]
        case .createsAbsent: [AppendContract.anAppendToAnAbsentKeyCreatesNothing.name]
        case .keepsUnfinishedLine: [AppendContract.theNextAppendCutsAnUnfinishedLine.name]
        case .acceptsAnyLine: [AppendContract.aLineThatIsNotOneLineIsRefused.name]
        case .offsetAlwaysZero, .callsLineTwice: [AppendContract.lineIsCalledOnceWithGrowingOffsets.name]
        case .lostAppend: [AppendContract.concurrentAppendsEachLandWhole.name]
        }
    }

    public var description: String { rawValue }
}
