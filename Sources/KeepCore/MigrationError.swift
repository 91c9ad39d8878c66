import KeepPorts

/// A one-time migration that did not finish: what it managed, and what failed.
///
/// The done-marker is not written after a failure, so the next launch tries again; the
/// values already copied stay, and are not copied twice (the target's value wins).
public struct MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Values copied before and after the failures.
    public let copied: Int
    /// Every read, write or listing that failed, each naming its key or namespace.
    public let failures: [StorageError]

    /// The failure of a migration that copied `copied` values and met `failures`.
    public init(copied: Int, failures: [StorageError]) {
        self.copied = copied
        self.failures = failures
    }

    public var description: String {
        var text =
            "the one-time migration from the old store did not finish (\(copied) copied, \(failures.count) failed"
        text += "; it will be retried at the next launch)"
        if let first = failures.first { text += ": \(first)" }
        return text
    }
}
