import KeepFileStore
import KeepPorts
import Testing

/// What a power-cut test does to a store, as data: values already there, then steps.
///
/// The `setup` values are written by the correct store and made durable (a clean
/// shutdown) before the first step: they are the "old" values. Each step is one operation,
/// or several run at once by writers of their own (each opens its own store on the same
/// disk, as separate processes would). Adding a workload is adding a value to ``all``.
struct Workload: Sendable, CustomTestStringConvertible {
    let name: String
    let setup: [StorageKey: String]
    let steps: [Step]

    /// One store operation.
    enum Operation: Sendable, Hashable, CustomStringConvertible {
        case write(StorageKey, String)
        /// An append of this line (its newline added by the store).
        case append(StorageKey, String)
        case remove(StorageKey)
        case clear(Namespace)
        /// The data root made as a launch makes it before anything is written (the store
        /// lock's and kept data's directory): ``DataRoot/makeDirectory(_:)``, on the store's seam.
        case makeDataRoot

        /// Carries the operation out on `store`.
        func apply(to store: FileStore) async throws(StorageError) {
            switch self {
            case .makeDataRoot: try DataRoot.makeDirectory(store.root, calls: store.calls)
            case .write(let key, let value): try await store.write(key, value)
            case .append(let key, let line): _ = try await store.append(key) { _ in line }
            case .remove(let key): try await store.remove(key)
            case .clear(let namespace): try await store.clear(namespace)
            }
        }

        /// What `key` holds once the operation is done, or `.untouched`.
        func effect(on key: StorageKey) -> Effect {
            switch self {
            case .write(key, let value): .sets(value)
            case .append(key, let line): .appends(line)
            case .remove(key): .sets(nil)
            case .clear(key.namespace): .sets(nil)
            default: .untouched
            }
        }

        var description: String {
            switch self {
            case .write(let key, let value): "write \(key) (\(value.utf8.count) bytes)"
            case .append(let key, let line): "append to \(key) (\(line.utf8.count) bytes)"
            case .remove(let key): "remove \(key)"
            case .clear(let namespace): "clear \(namespace.rawValue)"
            case .makeDataRoot: "make the data root"
            }
        }
    }

    /// What an operation does to one key.
    enum Effect: Equatable {
        case sets(String?)
        /// Adds this line to the value's finished lines, when there is a value.
        case appends(String)
        case untouched

        /// What the key holds after this effect, when it held `value` before.
        func applied(to value: String?) -> String? {
            switch self {
            case .sets(let new): new
            case .appends(let line): value.map { ValueLines.finished($0) + line + "\n" }
            case .untouched: value
            }
        }
    }

    /// One step: an operation, or several at once.
    enum Step: Sendable {
        case one(Operation)
        /// Each operation on a writer of its own, all at once, interleaved as `interleaving` says.
        case together([Operation], Interleaving)
        /// Each operation by a writer of its own, all at once, on one store (tasks of one app),
        /// so they share its group commit. The first writer goes alone until its directory
        /// flush is made; that flush is then held under way (``FlushHold``) while the others
        /// rename, until each waits for a flush or is done: their renames came after a flush
        /// began, the case a group commit must not cover with that flush. One namespace.
        case sharing([Operation])
    }

    /// How the writers of a ``Step/together(_:_:)`` step take turns.
    enum Interleaving: Sendable {
        /// Strict turns, one seam call each, round robin (see ``Lockstep``): the same
        /// interleaving every run. Needs writers that block nowhere but in seam calls.
        case lockstep
        /// No control: the threads run as the scheduler runs them, and the disk records the
        /// interleaving that happened. For writers that wait on each other (a group commit).
        case free
    }

    /// The keys some step appends to: read as lines, their unfinished last line ignored.
    var appendedKeys: Set<StorageKey> {
        var keys = Set<StorageKey>()
        for step in steps {
            switch step {
            case .one(let operation): if case .append(let key, _) = operation { keys.insert(key) }
            case .together(let operations, _), .sharing(let operations):
                for case .append(let key, _) in operations { keys.insert(key) }
            }
        }
        return keys
    }

    /// Every key the workload touches, setup included, in a stable order.
    var keys: [StorageKey] {
        var keys = Set(setup.keys)
        for step in steps {
            switch step {
            case .one(let operation): keys.formUnion(operation.keys)
            case .together(let operations, _), .sharing(let operations):
                for operation in operations { keys.formUnion(operation.keys) }
            }
        }
        return keys.sorted { ($0.namespace, $0.id) < ($1.namespace, $1.id) }
    }

    var testDescription: String { name }

    // MARK: - The workloads

    static let all: [Workload] = [
        overwrite, create, firstLaunch, remove, clear, mixed, twoWritersAtOnce, concurrentWriters, turn, appends,
        appendAfterATornLine, appendsAndWrites, turnAsAnAppend,
    ]

    /// One key overwritten with a longer value, then a shorter one.
    static let overwrite = Workload(
        name: "overwrite", setup: [c1: value(c1, 0, length: 37)],
        steps: [.one(.write(c1, value(c1, 1, length: 150))), .one(.write(c1, value(c1, 2, length: 21)))])

    /// A first write on an empty disk: the root, the store and the namespace made on the way.
    static let create = Workload(
        name: "create", setup: [:], steps: [.one(.write(c1, value(c1, 1, length: 120)))])

    /// A first launch on an empty disk: the data root made (as the store lock and kept data
    /// make it, before any value), then the settings, a chat and its draft written into it.
    /// A value acknowledged here is lost if the root's own entry was never flushed.
    static let firstLaunch = Workload(
        name: "first launch", setup: [:],
        steps: [
            .one(.makeDataRoot), .one(.write(s1, value(s1, 1, length: 40))), .one(.write(d1, value(d1, 1, length: 22))),
            .one(.write(c1, value(c1, 1, length: 90))), .one(.remove(d1)),
        ])

    /// One of two keys removed.
    static let remove = Workload(
        name: "remove", setup: [c1: value(c1, 0, length: 40), c2: value(c2, 0, length: 24)],
        steps: [.one(.remove(c1))])

    /// A namespace of three keys cleared, another namespace beside it.
    static let clear = Workload(
        name: "clear",
        setup: [
            c1: value(c1, 0, length: 30), c2: value(c2, 0, length: 45), c3: value(c3, 0, length: 18),
            d1: value(d1, 0, length: 33),
        ],
        steps: [.one(.clear(.chats))])

    /// Several keys in three namespaces: overwrites, a new namespace, a removal, a clear,
    /// a write after the clear, and an id that needs escaping.
    static let mixed = Workload(
        name: "mixed",
        setup: [c1: value(c1, 0, length: 26), c2: value(c2, 0, length: 61), d1: value(d1, 0, length: 35)],
        steps: [
            .one(.write(c1, value(c1, 1, length: 130))),
            .one(.write(s1, value(s1, 1, length: 44))),
            .one(.remove(c2)),
            .one(.write(c1, value(c1, 2, length: 17))),
            .one(.clear(.drafts)),
            .one(.write(d2, value(d2, 1, length: 29))),
            .one(.write(upper, value(upper, 1, length: 50))),
        ])

    /// Two writers at once on two keys, then on one key, in lockstep; then two more as the
    /// threads run them.
    static let twoWritersAtOnce = Workload(
        name: "two writers at once",
        setup: [c1: value(c1, 0, length: 33), c2: value(c2, 0, length: 20)],
        steps: [
            .together([.write(c1, value(c1, 1, length: 100)), .write(c2, value(c2, 1, length: 88))], .lockstep),
            .together([.write(c1, value(c1, 2, length: 27)), .write(c1, value(c1, 3, length: 64))], .lockstep),
            .together([.write(c2, value(c2, 2, length: 40)), .remove(c1)], .free),
        ])

    /// Three writers of one store at once, renaming while the first one's directory flush is
    /// under way; then two writers on one key and a third on another, the same way.
    static let concurrentWriters = Workload(
        name: "concurrent writers of one store",
        setup: [c1: value(c1, 0, length: 31), c2: value(c2, 0, length: 22), c3: value(c3, 0, length: 40)],
        steps: [
            .sharing([
                .write(c1, value(c1, 1, length: 90)), .write(c2, value(c2, 1, length: 70)),
                .write(c3, value(c3, 1, length: 52)),
            ]),
            .sharing([
                .write(c2, value(c2, 2, length: 35)), .write(c1, value(c1, 2, length: 47)),
                .write(c1, value(c1, 3, length: 66)),
            ]),
        ])

    /// A turn of `keep ask` in a chat, as the store sees it: the question kept as the draft,
    /// the chat rewritten whole with the question and its answer, the draft cleared. At every
    /// cut the question survives, in the draft or in the chat, from the moment its draft was
    /// acknowledged; a power cut never loses an acknowledged turn.
    static let turn = Workload(
        name: "a turn: draft, chat, draft cleared",
        setup: [c1: value(c1, 0, length: 90)],
        steps: [
            .one(.write(d1, value(d1, 1, length: 40))),
            .one(.write(c1, value(c1, 1, length: 170))),
            .one(.remove(d1)),
        ])

    /// Three lines appended to a value one after another.
    static let appends = Workload(
        name: "appends", setup: [c1: line(c1, 0, length: 30) + "\n"],
        steps: [
            .one(.append(c1, line(c1, 1, length: 40))), .one(.append(c1, line(c1, 2, length: 70))),
            .one(.append(c1, line(c1, 3, length: 25))),
        ])

    /// Appends to a value a crash left with an unfinished last line (no newline, no NUL):
    /// the first append cuts it, and a power cut never brings its bytes back inside a line.
    static let appendAfterATornLine = Workload(
        name: "appends after an unfinished line",
        setup: [c1: line(c1, 0, length: 20) + "\n" + line(c2, 9, length: 36)],
        steps: [.one(.append(c1, line(c1, 1, length: 45))), .one(.append(c1, line(c1, 2, length: 30)))])

    /// Appends mixed with whole writes and removals: an append after a write, to an absent
    /// key (nothing created), and after a removal (nothing re-created).
    static let appendsAndWrites = Workload(
        name: "appends, writes and removals",
        setup: [c1: line(c1, 0, length: 28) + "\n", d1: value(d1, 0, length: 30)],
        steps: [
            .one(.append(c1, line(c1, 1, length: 50))), .one(.write(c1, line(c1, 2, length: 33) + "\n")),
            .one(.append(c1, line(c1, 3, length: 41))), .one(.append(c2, line(c2, 1, length: 20))),
            .one(.write(d1, value(d1, 1, length: 26))), .one(.remove(c1)), .one(.append(c1, line(c1, 4, length: 18))),
        ])

    /// A turn of format 3, as the store sees it: the question kept as the draft, one line
    /// appended to a chat of many records, the draft cleared. No directory flush is needed
    /// for the line, and none is made.
    static let turnAsAnAppend = Workload(
        name: "a turn as an append: draft, line appended to 200 records, draft cleared",
        setup: [c1: (0..<200).map { line(c1, $0, length: 40) + "\n" }.joined()],
        steps: [
            .one(.write(d1, value(d1, 1, length: 40))), .one(.append(c1, line(c1, 5, length: 120))),
            .one(.remove(d1)),
        ])

    /// Line `version` of `key`, about `length` bytes: as ``value(_:_:length:)``, never a
    /// newline, with a two-byte `é` for every fifth letter, so that a sector's edge can cut a
    /// character in two.
    static func line(_ key: StorageKey, _ version: Int, length: Int) -> String {
        var line = ""
        for (index, character) in value(key, version, length: length).enumerated() {
            line.append(index > 12 && index % 5 == 0 ? "é" : character)
        }
        return line
    }

    static let c1 = StorageKey(.chats, "c1")
    static let c2 = StorageKey(.chats, "c2")
    static let c3 = StorageKey(.chats, "c3")
    static let d1 = StorageKey(.drafts, "d1")
    static let d2 = StorageKey(.drafts, "d2")
    static let s1 = StorageKey(.settings, "s1")
    static let upper = StorageKey(.chats, "Chat-A")

    /// Version `version` of `key`'s value, `length` bytes: a head naming both, then letters
    /// in an order of the version's own, so no two values share a sector's bytes by chance.
    static func value(_ key: StorageKey, _ version: Int, length: Int) -> String {
        let head = Array("[\(key.namespace.rawValue)/\(key.id) v\(version)]".utf8)
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        let body = (0..<max(0, length - head.count)).map { letters[($0 * (2 * version + 1) + version) % letters.count] }
        return String(decoding: head + body, as: UTF8.self)
    }
}

extension Workload.Operation {
    /// The namespace the operation works in.
    var namespace: Namespace {
        switch self {
        case .write(let key, _), .append(let key, _), .remove(let key): key.namespace
        case .clear(let namespace): namespace
        case .makeDataRoot: .cache  // in no namespace; never one of a `sharing` step
        }
    }

    /// The keys the operation names (a clear names none: it reaches every key of its namespace).
    fileprivate var keys: [StorageKey] {
        switch self {
        case .write(let key, _), .append(let key, _), .remove(let key): [key]
        case .clear, .makeDataRoot: []
        }
    }
}
