import KeepPorts

/// What a run of ``migrateStorage(from:to:marker:now:progress:)`` did.
public struct MigrationReport: Sendable, Equatable {
    /// True when the target's done-marker was already there and nothing was read.
    public let alreadyDone: Bool
    /// Values copied from the source.
    public let copied: Int
    /// Source values not copied because the target already had a value for the key.
    public let keptNewer: Int
    /// Members that can never be copied, each naming its key and why; recorded in the
    /// marker, so the migration still finishes and never runs again.
    public let skipped: [StorageError]

    /// The report of a run that copied `copied` values, left `keptNewer` to the target and
    /// skipped `skipped`; `alreadyDone` when the marker was there first.
    public init(alreadyDone: Bool, copied: Int, keptNewer: Int, skipped: [StorageError] = []) {
        self.alreadyDone = alreadyDone
        self.copied = copied
        self.keptNewer = keptNewer
        self.skipped = skipped
    }

    /// One line for the launch that finished the copy, when there is something to tell:
    /// what was skipped. `nil` when everything was copied (or nothing was done).
    public var notice: String? {
        guard !alreadyDone, !skipped.isEmpty else { return nil }
        let shown = skipped.prefix(3).map(\.description).joined(separator: "; ")
        let more = skipped.count > 3 ? "; and \(skipped.count - 3) more (`keep doctor` lists them)" : ""
        return "the one-time copy of store.json finished (\(copied) copied); \(skipped.count) of its values can "
            + "never be copied and were skipped, store.json keeps them: \(shown)\(more)"
    }
}
