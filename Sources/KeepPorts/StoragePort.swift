/// Where an app keeps its values: opaque strings under namespaced keys.
///
/// The port stores strings and nothing else; what they mean (a chat, a settings map) is
/// decided above it, so swapping the adapter changes no format. Every adapter promises,
/// and `KeepConformance.StorageContract` checks:
///
/// - `read` of a missing key is `nil`; only a failure to reach the data throws.
/// - `readUTF8` answers the bytes of what `read` answers.
/// - `write` is atomic: a concurrent `read` sees the whole old value or the whole new
///   one, never a prefix, never a mix.
/// - An empty string is a value, not an absence.
/// - `remove` of an absent key succeeds.
/// - `clear` empties one namespace and touches no other.
/// - Namespaces never collide, and ids differing only in case are different keys.
/// - `append` adds one line at the end of a value as atomically and durably as `write`
///   replaces one, and never creates a value (see ``append(_:_:)``; the rules are
///   `KeepConformance.AppendContract`'s).
///
/// Errors are ``StorageError`` values that name the operation, the path or key, and the
/// errno; they never contain a stored value.
public protocol StoragePort: Sendable {
    /// The value stored under `key`, or `nil` when there is none.
    func read(_ key: StorageKey) async throws(StorageError) -> String?

    /// The UTF-8 of the value `read` answers for `key` (byte for byte, refused where `read`
    /// refuses), or `nil` when there is none: for a reader that parses the value's bytes
    /// and would make no string of it whole. An adapter that holds values as bytes answers
    /// without making the string, which the standard library checks byte by byte once more
    /// as it makes it; the default reads the string and copies its bytes.
    func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]?

    /// Stores `value` under `key`, replacing any earlier value atomically.
    func write(_ key: StorageKey, _ value: String) async throws(StorageError)

    /// Removes the value under `key`; removing an absent key succeeds.
    func remove(_ key: StorageKey) async throws(StorageError)

    /// The ids that hold a value in `namespace`, in no particular order.
    func listIds(_ namespace: Namespace) async throws(StorageError) -> [String]

    /// Removes every value in `namespace`, and nothing outside it.
    func clear(_ namespace: Namespace) async throws(StorageError)

    /// Adds a line at the end of the value under `key`, and answers whether there was a
    /// value to add it to: `false`, writing nothing, when the key holds none (so a value
    /// removed meanwhile is never re-created by a late append).
    ///
    /// `line` is called once, with the byte offset (UTF-8) at which the line will start in
    /// the stored value, and returns the line: no newline and no NUL inside (else the
    /// append throws and writes nothing). The store adds the `"\n"`. The offset is for a
    /// decorator that binds each line to its place (a sealer); a store that keeps values
    /// as given passes the value's length.
    ///
    /// A value is read as lines: a last line that is *unfinished* (bytes after the last
    /// newline, or a last line holding a NUL, which is what a crash mid-append leaves) is
    /// not a line. The append cuts it before adding its own, so after it returns `read`
    /// shows the value's finished lines, then `line` and `"\n"`. Appends land in the order
    /// they return, each whole. An adapter's own append is as atomic and as durable as
    /// its `write`: a crash mid-append leaves the old value with at most an unfinished
    /// last line.
    ///
    /// The default implementation (a `read`, then a `write` of the whole value) keeps
    /// every rule for one writer at a time: appends to one key made concurrently can lose
    /// each other, and a remove between its read and its write is undone. An adapter that
    /// can do better (every adapter of this package) implements it.
    @discardableResult
    func append(_ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String) async throws(StorageError) -> Bool
}

extension StoragePort {
    /// The bytes of `read`'s string, copied out of it.
    public func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
        try await read(key).map { Array($0.utf8) }
    }

    /// The append of any store: the value read, its unfinished last line cut, the line
    /// added, the whole value written back. Correct for one writer at a time; see the
    /// requirement.
    @discardableResult
    public func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        guard let old = try await read(key) else { return false }
        try await write(key, try ValueLines.appending(line, to: old, key: key))
        return true
    }
}
