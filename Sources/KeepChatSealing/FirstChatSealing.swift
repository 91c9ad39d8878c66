import KeepPorts

/// The store of a root no launch has decided yet (``ChatSealing/notYet``): plain until
/// the first write into the chats or drafts, which decides (``ChatSealing/decide(_:keys:root:)``:
/// sealed from that first chat, or whatever another process decided meanwhile) and then
/// goes to the store the decision gave, as does every call after it.
///
/// Until then a read of the chats' namespaces looks for a marker another process may
/// have written since launch (one small read, and only on a root with no chat yet), so a
/// chat sealed by a process beside this one is read sealed, never as plain text.
/// Settings and the cache pass straight through.
package actor FirstChatSealing: StampedStorage {
    private let plain: any StampedStorage
    private let keys: ChatKeys
    private let root: String
    private var decided: ChatSealing.Opened?

    /// `plain` (the file store), deciding with `keys` under the data root `root`.
    package init(_ plain: any StampedStorage, keys: ChatKeys, root: String) {
        self.plain = plain
        self.keys = keys
        self.root = root
    }

    /// The store for `namespace`: the decided one; for a write (`deciding`) into the
    /// chats' namespaces, decided now.
    private func store(_ namespace: Namespace, deciding: Bool) async throws(StorageError) -> any StampedStorage {
        if let decided { return decided.storage }
        guard ChatSealing.sealedNamespaces.contains(namespace) else { return plain }
        if !deciding, try await ChatSealingMarker.read(plain) == nil { return plain }
        return try await decide().storage
    }

    /// Decides now, once (a conversation is about to be kept): what ``ChatSealing/decide(_:keys:root:)``
    /// answered, which every later call goes to.
    package func decide() async throws(StorageError) -> ChatSealing.Opened {
        if let decided { return decided }
        let made = try await ChatSealing.decide(plain, keys: keys, root: root)
        decided = made
        return made
    }

    package func read(_ key: StorageKey) async throws(StorageError) -> String? {
        try await store(key.namespace, deciding: false).read(key)
    }

    package func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
        try await store(key.namespace, deciding: false).readUTF8(key)
    }

    package func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        try await store(key.namespace, deciding: true).write(key, value)
    }

    @discardableResult
    package func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        try await store(key.namespace, deciding: true).append(key, line)
    }

    package func remove(_ key: StorageKey) async throws(StorageError) {
        try await store(key.namespace, deciding: false).remove(key)
    }

    package func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        try await store(namespace, deciding: false).listIds(namespace)
    }

    package func clear(_ namespace: Namespace) async throws(StorageError) {
        try await store(namespace, deciding: false).clear(namespace)
    }

    package func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        let store = try await store(namespace, deciding: false)
        guard let stamped = store as? any StampedStorage else { throw .noStamps("stamps", path: namespace.rawValue) }
        return try await stamped.stamps(namespace)
    }

    package func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? {
        let store = try await store(key.namespace, deciding: false)
        guard let stamped = store as? any StampedStorage else { throw .noStamps("stamp", path: key.description) }
        return try await stamped.stamp(key)
    }
}
