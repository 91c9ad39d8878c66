/// Where an app keeps its values: opaque strings under namespaced keys.
///
/// The port stores strings and nothing else; what they mean (a chat, a settings map) is
/// decided above it, so swapping the adapter changes no format. Every adapter promises,
/// and `KeepConformance.StorageContract` checks:
///
/// - `read` of a missing key is `nil`; only a failure to reach the data throws.
/// - `write` is atomic: a concurrent `read` sees the whole old value or the whole new
///   one, never a prefix, never a mix.
/// - An empty string is a value, not an absence.
/// - `remove` of an absent key succeeds.
/// - `clear` empties one namespace and touches no other.
/// - Namespaces never collide, and ids differing only in case are different keys.
///
/// Errors are ``StorageError`` values that name the operation, the path or key, and the
/// errno; they never contain a stored value.
public protocol StoragePort: Sendable {
    /// The value stored under `key`, or `nil` when there is none.
    func read(_ key: StorageKey) async throws(StorageError) -> String?

    /// Stores `value` under `key`, replacing any earlier value atomically.
    func write(_ key: StorageKey, _ value: String) async throws(StorageError)

    /// Removes the value under `key`; removing an absent key succeeds.
    func remove(_ key: StorageKey) async throws(StorageError)

    /// The ids that hold a value in `namespace`, in no particular order.
    func listIds(_ namespace: Namespace) async throws(StorageError) -> [String]

    /// Removes every value in `namespace`, and nothing outside it.
    func clear(_ namespace: Namespace) async throws(StorageError)
}
