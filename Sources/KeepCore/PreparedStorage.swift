import KeepPorts

/// A ``/KeepPorts/StoragePort`` that finishes a preparation (the one-time migration) before it
/// answers anything.
///
/// The first call of any method starts the preparation and waits for it; every later or
/// concurrent call waits for that same run, so ten first calls at boot run it once. The
/// result is kept for the life of the value: a failed preparation is not retried in this
/// run (the next launch retries it), and the store is used all the same.
///
/// After the preparation every call goes to the target, and only to it: the source of a
/// migration is never read as a fallback, so a value the copy missed reads as absent
/// rather than silently coming from the old store. Appends and stamps are the target's
/// own: an append is as atomic as the target makes it, and a stamp asked of a target that
/// keeps none (one that is not a ``/KeepPorts/StampedStorage``) throws.
public actor PreparedStorage: StampedStorage {
    private let target: any StoragePort
    private let prepare: @Sendable () async -> Void
    private var preparation: Task<Void, Never>?

    /// `target`, made ready by `prepare` before its first use. `prepare` reports its own
    /// failures; it cannot stop the store from being used.
    public init(_ target: any StoragePort, prepare: @escaping @Sendable () async -> Void) {
        self.target = target
        self.prepare = prepare
    }

    /// `target`, after a one-time ``migrateStorage(from:to:marker:now:progress:)`` from
    /// `source`; a failed migration is handed to `onError` (for the app to show) and the
    /// store stays usable. The run that finishes the copy hands its report to `onReport`
    /// (once: later runs find the marker), and `progress` is told of each member copied.
    public init(
        _ target: any StoragePort, migratingFrom source: any StoragePort,
        onError: @escaping @Sendable (MigrationError) -> Void,
        onReport: @escaping @Sendable (MigrationReport) -> Void = { _ in },
        progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) {
        self.init(target) {
            do throws(MigrationError) {
                let report = try await migrateStorage(from: source, to: target, progress: progress)
                if !report.alreadyDone { onReport(report) }
            } catch {
                onError(error)
            }
        }
    }

    /// Waits for the preparation, starting it on the first call.
    private func ready() async {
        let task = preparation ?? Task { await prepare() }
        preparation = task
        await task.value
    }

    /// The target's value, once the preparation has run.
    public func read(_ key: StorageKey) async throws(StorageError) -> String? {
        await ready()
        return try await target.read(key)
    }

    /// The target's bytes, once the preparation has run.
    public func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
        await ready()
        return try await target.readUTF8(key)
    }

    /// Writes to the target, once the preparation has run.
    public func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        await ready()
        try await target.write(key, value)
    }

    /// Removes from the target, once the preparation has run.
    public func remove(_ key: StorageKey) async throws(StorageError) {
        await ready()
        try await target.remove(key)
    }

    /// The target's ids, once the preparation has run; never the source's.
    public func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        await ready()
        return try await target.listIds(namespace)
    }

    /// Clears the namespace in the target, once the preparation has run.
    public func clear(_ namespace: Namespace) async throws(StorageError) {
        await ready()
        try await target.clear(namespace)
    }

    /// Appends to the target's value, once the preparation has run.
    @discardableResult
    public func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        await ready()
        return try await target.append(key, line)
    }

    /// The target's stamps of `namespace`, once the preparation has run.
    public func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        await ready()
        guard let stamped = target as? any StampedStorage else { throw .noStamps("stamps", path: namespace.rawValue) }
        return try await stamped.stamps(namespace)
    }

    /// The target's stamp of `key`, once the preparation has run.
    public func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? {
        await ready()
        guard let stamped = target as? any StampedStorage else { throw .noStamps("stamp", path: key.description) }
        return try await stamped.stamp(key)
    }
}
