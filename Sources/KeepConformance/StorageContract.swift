import KeepPorts

/// The storage contract: every rule a ``/KeepPorts/StoragePort`` adapter must keep to be drop-in
/// compatible with ``/KeepPorts/MemoryStorage`` and the file store.
///
/// Run it from a parameterised test, giving a factory that returns a fresh, empty,
/// isolated adapter each time it is called:
///
/// ```swift
/// @Test(arguments: StorageContract.cases)
/// func honoursTheStorageContract(_ rule: ContractCase<any StoragePort>) async throws {
///     let directory = try TemporaryDirectory()
///     try await rule.check { try MyStore(root: directory.path) }
/// }
/// ```
public enum StorageContract {
    /// A rule of the storage contract, run against any ``/KeepPorts/StoragePort``.
    public typealias Case = ContractCase<any StoragePort>

    /// Every case, in the order they are documented.
    public static let cases: [Case] = [
        missingIsNil, namespacesNeverCollide, emptyStringIsAValue, concurrentReaderNeverSeesATornValue,
        removingAnAbsentKeySucceeds, clearEmptiesOneNamespaceOnly, idsDifferingOnlyInCaseAreDifferent,
        listIdsIsExactlyTheIdsWritten, aValueReadsBackExactly, anOverwriteReplacesTheWholeValue,
        aRemovedKeyIsGone, anEmptyIdIsRefused, concurrentWritesToDistinctKeysAllSurvive, bytesAreTheValuesUTF8,
    ]

    /// The case named `name`, for tests that pin one rule.
    public static func named(_ name: String) -> Case? {
        cases.first { $0.name == name }
    }

    /// A key never written reads as `nil` in every namespace, and an untouched namespace
    /// lists nothing; neither throws.
    public static let missingIsNil = Case("a missing key reads as nil, never an error") { make, expect in
        let store = try await make()
        for namespace in Namespace.allCases {
            try expect.equal(try await store.read(StorageKey(namespace, "never-written")), nil, "read in \(namespace)")
            try expect.equal(try await store.listIds(namespace), [], "listIds of untouched \(namespace)")
        }
        try await store.write(StorageKey(.chats, "present"), "here")
        try expect.equal(try await store.read(StorageKey(.chats, "absent")), nil, "read of a sibling never written")
    }

    /// One id in each of the four namespaces holds four values; removing one leaves the
    /// others.
    public static let namespacesNeverCollide = Case("namespaces never collide") { make, expect in
        let store = try await make()
        for namespace in Namespace.allCases {
            try await store.write(StorageKey(namespace, "shared"), "value of \(namespace.rawValue)")
        }
        for namespace in Namespace.allCases {
            try expect.equal(
                try await store.read(StorageKey(namespace, "shared")), "value of \(namespace.rawValue)",
                "read of \(namespace)/shared")
        }
        try await store.remove(StorageKey(.chats, "shared"))
        try expect.equal(
            try await store.read(StorageKey(.settings, "shared")), "value of settings",
            "settings/shared after removing chats/shared")
    }

    /// `""` written reads back as `""`, is listed, and can be written again over text.
    public static let emptyStringIsAValue = Case("an empty string is a value, not an absence") { make, expect in
        let store = try await make()
        let key = StorageKey(.drafts, "blank")
        try await store.write(key, "")
        try expect.equal(try await store.read(key), "", "read of a stored empty string")
        try expect.that(try await store.listIds(.drafts).contains("blank"), "a stored empty string is not listed")
        try await store.write(key, "then text")
        try await store.write(key, "")
        try expect.equal(try await store.read(key), "", "read after overwriting with an empty string")
    }

    /// Ten writers overwrite one key with large marked values while a reader reads it:
    /// every value read is whole (``TornReadProbe``).
    public static let concurrentReaderNeverSeesATornValue = Case(
        "a concurrent reader never sees a torn value"
    ) { make, expect in
        let report = try await TornReadProbe.run(on: try await make(), size: 256 * 1024)
        try expect.that(report.reads > 0, "the reader never read while the writers wrote")
        try expect.that(
            report.problems.isEmpty,
            "\(report.problems.count) of \(report.reads) reads were torn, the first: \(report.problems.first ?? "")")
    }

    /// `remove` of a key never written, or removed already, succeeds.
    public static let removingAnAbsentKeySucceeds = Case("removing an absent key succeeds") { make, expect in
        let store = try await make()
        try await store.remove(StorageKey(.cache, "never-written"))
        try await store.write(StorageKey(.cache, "once"), "x")
        try await store.remove(StorageKey(.cache, "once"))
        try await store.remove(StorageKey(.cache, "once"))
        try expect.that(!(try await store.listIds(.cache).contains("once")), "a removed id is still listed")
    }

    /// `clear` of one namespace empties it and leaves the others; the namespace can be
    /// written again afterwards.
    public static let clearEmptiesOneNamespaceOnly = Case("clear empties one namespace only") { make, expect in
        let store = try await make()
        try await store.write(StorageKey(.chats, "c1"), "chat one")
        try await store.write(StorageKey(.chats, "c2"), "chat two")
        try await store.write(StorageKey(.drafts, "d1"), "draft")
        try await store.write(StorageKey(.settings, "s1"), "setting")
        try await store.clear(.chats)
        try expect.equal(try await store.listIds(.chats), [], "listIds of the cleared namespace")
        try expect.equal(try await store.read(StorageKey(.chats, "c1")), nil, "read of a cleared key")
        try expect.equal(try await store.read(StorageKey(.drafts, "d1")), "draft", "drafts/d1 after clearing chats")
        try expect.equal(
            try await store.read(StorageKey(.settings, "s1")), "setting", "settings/s1 after clearing chats")
        try await store.clear(.cache)
        try await store.write(StorageKey(.chats, "c3"), "after clear")
        try expect.equal(try await store.read(StorageKey(.chats, "c3")), "after clear", "a write after clear")
    }

    /// `Chat-A` and `chat-a` are two keys with two values, both listed.
    public static let idsDifferingOnlyInCaseAreDifferent = Case(
        "ids differing only in case are different keys"
    ) { make, expect in
        let store = try await make()
        try await store.write(StorageKey(.chats, "Chat-A"), "upper")
        try await store.write(StorageKey(.chats, "chat-a"), "lower")
        try expect.equal(try await store.read(StorageKey(.chats, "Chat-A")), "upper", "read of Chat-A")
        try expect.equal(try await store.read(StorageKey(.chats, "chat-a")), "lower", "read of chat-a")
        let listed = try await store.listIds(.chats)
        try expect.that(listed.contains("Chat-A") && listed.contains("chat-a"), "listIds lists both ids: \(listed)")
    }

    /// `listIds` answers every id written, spaces, dots, slashes and non-ASCII included,
    /// each once, and nothing else (no temp file).
    public static let listIdsIsExactlyTheIdsWritten = Case(
        "listIds returns exactly the ids written, never a temp file"
    ) { make, expect in
        let store = try await make()
        let ids = ["plain", "with space", "../../boot", ".hidden", "café", "emoji-🙂", "a~2e", "slash/inside", "x"]
        for id in ids {
            try await store.write(StorageKey(.chats, id), "value of \(id)")
        }
        try await store.write(StorageKey(.chats, "plain"), "overwritten")
        try expect.equal(try await store.listIds(.chats).sorted(), ids.sorted(), "listIds")
        for id in ids where id != "plain" {
            try expect.equal(try await store.read(StorageKey(.chats, id)), "value of \(id)", "read of \(id)")
        }
    }

    /// Line breaks, quotes, a NUL, non-ASCII and a 1 MiB value read back exactly as
    /// written.
    public static let aValueReadsBackExactly = Case("a value reads back exactly as written") { make, expect in
        let store = try await make()
        let values = [
            "plain", "line one\nline two\r\n", "tab\tand \"quotes\" and \\", "nul\u{0}inside", "ünïcödé 🙂 中文",
            String(repeating: "0123456789abcdef", count: 65_536),
        ]
        for (index, value) in values.enumerated() {
            let key = StorageKey(.cache, "value-\(index)")
            try await store.write(key, value)
            try expect.equal(try await store.read(key), value, "read of value \(index)")
        }
    }

    /// A short value written over a long one reads back as the short one alone, nothing of
    /// the old value left.
    public static let anOverwriteReplacesTheWholeValue = Case("an overwrite replaces the whole value") {
        make, expect in
        let store = try await make()
        let key = StorageKey(.settings, "settings")
        try await store.write(key, String(repeating: "long value ", count: 1000))
        try await store.write(key, "short")
        try expect.equal(try await store.read(key), "short", "read after overwriting a long value with a short one")
    }

    /// A removed key reads as `nil` and is not listed; its sibling stays.
    public static let aRemovedKeyIsGone = Case("a removed key reads as nil and is not listed") { make, expect in
        let store = try await make()
        try await store.write(StorageKey(.drafts, "keep"), "kept")
        try await store.write(StorageKey(.drafts, "drop"), "dropped")
        try await store.remove(StorageKey(.drafts, "drop"))
        try expect.equal(try await store.read(StorageKey(.drafts, "drop")), nil, "read of a removed key")
        let listed = try await store.listIds(.drafts)
        try expect.that(listed.contains("keep") && !listed.contains("drop"), "listIds after a remove: \(listed)")
        try expect.equal(try await store.read(StorageKey(.drafts, "keep")), "kept", "read of its sibling")
    }

    /// Writing or reading the empty id throws a ``/KeepPorts/StorageError`` with code `invalidId`, and
    /// nothing is listed after.
    public static let anEmptyIdIsRefused = Case("an empty id is refused with a typed error") { make, expect in
        let store = try await make()
        let key = StorageKey(.chats, "")
        let isInvalid: (StorageError) -> Bool = { $0.code == .invalidId }
        try await expect.throwsError(StorageError.self, "write of an empty id", where: isInvalid) {
            try await store.write(key, "value")
        }
        try await expect.throwsError(StorageError.self, "read of an empty id", where: isInvalid) {
            _ = try await store.read(key)
        }
        try expect.equal(try await store.listIds(.chats), [], "listIds after the refused write")
    }

    /// Two dozen writes to distinct keys at once all read back.
    public static let concurrentWritesToDistinctKeysAllSurvive = Case(
        "concurrent writes to distinct keys all survive"
    ) { make, expect in
        let store = try await make()
        let count = 24
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { try await store.write(StorageKey(.chats, "chat-\(index)"), "turns of chat \(index)") }
            }
            try await group.waitForAll()
        }
        for index in 0..<count {
            try expect.equal(
                try await store.read(StorageKey(.chats, "chat-\(index)")), "turns of chat \(index)",
                "read of chat-\(index) after \(count) concurrent writes")
        }
        let listed = Set(try await store.listIds(.chats))
        try expect.that(
            listed.isSuperset(of: (0..<count).map { "chat-\($0)" }), "ids listed after \(count) concurrent writes")
    }

    /// `readUTF8` answers the UTF-8 of what `read` answers, byte for byte: `nil` for a key
    /// never written, the bytes of line breaks, quotes, a NUL, non-ASCII and a 1 MiB value,
    /// and, after an overwrite or a removal, the new value's bytes or `nil`, never the old.
    public static let bytesAreTheValuesUTF8 = Case("a value's bytes read as the UTF-8 of its text") {
        make, expect in
        let store = try await make()
        let key = StorageKey(.cache, "bytes")
        try await store.write(StorageKey(.cache, "other"), "another value")
        try expect.equal(try await store.readUTF8(key), nil, "readUTF8 of a key never written")
        let values = [
            "first", "line one\nline two\r\n", "nul\u{0}inside", "ünïcödé 🙂 中文",
            String(repeating: "0123456789abcdef", count: 65_536), "short",
        ]
        for (index, value) in values.enumerated() {
            try await store.write(key, value)
            try expect.equal(try await store.readUTF8(key), Array(value.utf8), "readUTF8 after write \(index)")
            try expect.equal(try await store.read(key), value, "read after write \(index)")
        }
        try await store.remove(key)
        try expect.equal(try await store.readUTF8(key), nil, "readUTF8 after the value was removed")
    }
}
