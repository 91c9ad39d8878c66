import KeepPorts

/// A store that writes into the chats' namespaces only while the root's sealing marker is
/// the one this run opened them under, and passes everything else through.
///
/// A run decides at launch how its chats are kept: sealed under the chats' key, or plain.
/// `keep chats seal` or `unseal` in another process changes that while this run goes on (a
/// `keep chat` left open): a sealed record appended to a chat made plain again, or a plain
/// line after sealed records, would leave the chat unreadable to every later run. So each
/// write, append, removal or clearing of a chat, a draft or the history first reads the
/// marker (one small value in `cache`) and, when it is not the one of the launch, is
/// refused with an error that says so and writes nothing. Reads pass: they cannot harm a
/// chat. A turn is recorded, a draft kept or cleared and a typed line added under the store
/// lock, which `seal` and `unseal` take for each value and for each change of the marker, so
/// the check and the write it guards are not split by either.
package struct MarkerCheckedStorage: StampedStorage {
    private let inner: any StampedStorage
    private let launched: ChatSealingMarker?

    /// `inner`, writing into the chats' namespaces only while the marker is `launched` (`nil`:
    /// no marker, a root never decided).
    package init(_ inner: any StampedStorage, launched: ChatSealingMarker?) {
        self.inner = inner
        self.launched = launched
    }

    /// Throws, naming `key` and what the marker says now, unless a change to `key` may be
    /// made: outside the chats' namespaces, or with the marker as it was at launch.
    private func check(_ key: StorageKey, _ operation: String) async throws(StorageError) {
        guard ChatSealing.sealedNamespaces.contains(key.namespace) else { return }
        let now = try await ChatSealingMarker.read(inner)
        guard now != launched else { return }
        let what = now.map { "they are \($0.phase.rawValue) now" } ?? "their marker is gone"
        throw StorageError(
            code: .unavailable, operation: operation, path: key.description,
            reason: "the chats were sealed or unsealed by another keep since this one started (\(what)); nothing "
                + "was written: quit and start keep again")
    }

    package func read(_ key: StorageKey) async throws(StorageError) -> String? {
        try await inner.read(key)
    }

    package func readUTF8(_ key: StorageKey) async throws(StorageError) -> [UInt8]? {
        try await inner.readUTF8(key)
    }

    package func write(_ key: StorageKey, _ value: String) async throws(StorageError) {
        try await check(key, "write")
        try await inner.write(key, value)
    }

    @discardableResult
    package func append(
        _ key: StorageKey, _ line: @Sendable (_ offset: Int) -> String
    ) async throws(StorageError) -> Bool {
        try await check(key, "append")
        return try await inner.append(key, line)
    }

    package func remove(_ key: StorageKey) async throws(StorageError) {
        try await check(key, "remove")
        try await inner.remove(key)
    }

    package func listIds(_ namespace: Namespace) async throws(StorageError) -> [String] {
        try await inner.listIds(namespace)
    }

    package func clear(_ namespace: Namespace) async throws(StorageError) {
        try await check(StorageKey(namespace, "*"), "clear")
        try await inner.clear(namespace)
    }

    package func stamps(_ namespace: Namespace) async throws(StorageError) -> [String: ValueStamp] {
        try await inner.stamps(namespace)
    }

    package func stamp(_ key: StorageKey) async throws(StorageError) -> ValueStamp? {
        try await inner.stamp(key)
    }
}
