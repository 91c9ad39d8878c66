/// What a run of ``migrateStorage(from:to:marker:now:)`` did.
public struct MigrationReport: Sendable, Equatable {
    /// True when the target's done-marker was already there and nothing was read.
    public let alreadyDone: Bool
    /// Values copied from the source.
    public let copied: Int
    /// Source values not copied because the target already had a value for the key.
    public let keptNewer: Int

    public init(alreadyDone: Bool, copied: Int, keptNewer: Int) {
        self.alreadyDone = alreadyDone
        self.copied = copied
        self.keptNewer = keptNewer
    }
}
