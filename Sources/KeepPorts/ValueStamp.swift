/// What a cache needs to tell whether a stored value changed since it last looked, without
/// reading it: its size, when it last changed, and a change token.
///
/// A store promises that a change of the value changes the stamp: a `write` changes the
/// token (the file store renames a new file into place, so a new inode; memory counts), an
/// append changes the size. A stamp says nothing about what the value holds.
///
/// A name that holds no value a store would return (a symbolic link, a directory, a FIFO),
/// or one whose stamp could not be taken, has a ``problem`` instead: a cache must not trust
/// it, and the key is that one value's problem, never its namespace's.
public struct ValueStamp: Sendable, Hashable {
    /// The stored value's size in bytes, as the store keeps it; -1 when it could not be told.
    public let size: Int64
    /// When the value last changed, in nanoseconds since 1970; a store without a clock
    /// (memory) gives 0.
    public let modified: Int64
    /// A token that a `write` of the value changes: the file's inode for the file store, a
    /// counter for memory.
    public let changeToken: UInt64
    /// Why the name has no stamp a cache may trust, in words (what it is when it is not a
    /// value, or why it could not be stamped); `nil` for a value.
    public let problem: String?

    /// A stamp with these fields, as a store made it or a cache kept it; a `problem` marks a
    /// name a cache must not trust.
    public init(size: Int64, modified: Int64, changeToken: UInt64, problem: String? = nil) {
        self.size = size
        self.modified = modified
        self.changeToken = changeToken
        self.problem = problem
    }

    /// Whether the name holds a value whose stamp a cache may trust.
    public var isTrusted: Bool { problem == nil }
}
