/// A store that can say, without reading a value, whether it changed: the port a cache
/// beside a store (a chat index) uses instead of the store's private layout.
///
/// A ``ValueStamp`` changes whenever its value does. ``stamps(_:)`` stamps a whole namespace
/// at once (what a listing needs); ``stamp(_:)`` one key (what a turn needs, before and
/// after its write). Only a namespace that cannot be listed throws: a name that cannot be
/// stamped, or that holds no value (a symbolic link, a directory), has a stamp whose
/// ``ValueStamp/problem`` says why, so it is that key's problem and the others are stamped
/// all the same. A decorator (a prepared or a sealing store) forwards both to the store it
/// wraps.
public protocol StampedStorage: StoragePort {
    /// The stamp of every id in `namespace` that has a name in the store, by id; empty for
    /// a namespace never written.
    func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp]

    /// The stamp of `key`, or `nil` when nothing is stored under it.
    func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp?
}

extension StorageError {
    /// The error of a decorator asked for stamps over a store that keeps none, for
    /// `operation` on `path` (a key or a namespace).
    public static func noStamps(_ operation: String, path: String) -> StorageError {
        StorageError(
            code: .unavailable, operation: operation, path: path,
            reason: "the store this one wraps keeps no stamps (it is not a StampedStorage)")
    }
}
