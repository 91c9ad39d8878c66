/// A value read through a ``SealedStorage``, and whether it is sealed: what a store part-way
/// between sealed and plain (while `keep chats seal` or `unseal` runs, one value at a time)
/// needs to know of each value.
public struct SealedReading: Sendable, Equatable {
    /// How a value is kept in the store beneath.
    public enum State: Sendable, Equatable {
        /// Every line is a sealed record.
        case sealed
        /// No line is: the value is plain text (as every value outside a sealed namespace is).
        case plain
        /// Plain lines, then sealed records: a plain value that has been appended to since
        /// its namespace was sealed. ``SealedStorage/seal(_:)`` seals it whole.
        case partlySealed
    }

    /// The value, as `read` answers it.
    public let value: String
    /// How it is kept.
    public let state: State

    /// A value read in `state`.
    public init(value: String, state: State) {
        self.value = value
        self.state = state
    }
}
