import Foundation
import KeepChatIndex
import KeepFileStore
import KeepPorts
import KeepSealed

/// `keep chats seal` and `keep chats unseal`: every chat and draft (and the lines typed)
/// rewritten, one at a time,
/// sealed under the chats' data key or plain again, so that a kill or a power cut at any
/// point loses nothing and leaves every chat readable.
///
/// The order is what makes it safe. The ``ChatSealingMarker`` goes to ``ChatSealingMarker/Phase/sealing``
/// (or ``ChatSealingMarker/Phase/unsealing``) with the key's check before the first value is
/// rewritten, so any launch meanwhile reads the store through a ``/KeepSealed/SealedStorage``,
/// which reads plain and sealed values alike. Each value is rewritten whole by one atomic
/// write of the store, under the store's lock (no turn lands between its read and its
/// write). Only after the last does the marker say ``ChatSealingMarker/Phase/sealed`` (or
/// ``ChatSealingMarker/Phase/plain``). Run again, it goes on: a value already as wanted is
/// left alone. The chat index is removed at the end, so no title or word of the old
/// sealing is left in it, and the next listing rebuilds it under the new one.
///
/// The chats' data key stays in the keyring after `unseal` (a backup sealed under it may
/// still need it).
package struct ChatResealing: Sendable {
    /// How far a run went: how many values it rewrote of how many, and the values it could
    /// not read (left as they are, each named with why).
    package struct Outcome: Sendable {
        /// Values rewritten this run.
        package let rewritten: Int
        /// Chats and drafts there are.
        package let total: Int
        /// Values that could not be read, and why; left exactly as they are.
        package let unreadable: [String]
        /// Whether the store was sealed for the first time (plain before): the moment to
        /// say how to make a recovery file.
        package let firstSealing: Bool
    }

    private let plain: any StampedStorage
    private let keys: ChatKeys
    private let lock: StoreLock
    private let root: String

    /// Over `plain` (the file store, never sealed itself) under the data root `root`, with
    /// the chats' keys `keys`.
    package init(
        plain: any StampedStorage, keys: ChatKeys, lock: StoreLock, root: String
    ) {
        self.plain = plain
        self.keys = keys
        self.lock = lock
        self.root = root
    }

    /// Seals every chat and draft; `progress` hears after each value.
    package func seal(progress: @Sendable (_ done: Int, _ total: Int) -> Void) async throws(StorageError) -> Outcome {
        let marker = try await ChatSealingMarker.read(plain)
        var key = try await dataKey(for: marker, making: true)
        defer { ChatSealing.wipe(&key) }
        let (sealed, check) = try open(key)
        try await withLock { () throws(StorageError) in
            try await ChatSealingMarker(phase: .sealing, keyCheck: check).write(plain)
        }
        let (rewritten, total, unreadable) = try await rewrite(progress) { (id) throws(StorageError) in
            try await sealed.seal(id)
        }
        try await withLock { () throws(StorageError) in
            try await ChatSealingMarker(phase: .sealed, keyCheck: check).write(plain)
        }
        removeIndex()
        let first = marker?.needsKey != true
        return Outcome(rewritten: rewritten, total: total, unreadable: unreadable, firstSealing: first)
    }

    /// Makes every chat and draft plain again; `progress` hears after each value.
    package func unseal(progress: @Sendable (_ done: Int, _ total: Int) -> Void) async throws(StorageError) -> Outcome {
        guard let marker = try await ChatSealingMarker.read(plain), marker.needsKey else {
            return Outcome(rewritten: 0, total: 0, unreadable: [], firstSealing: false)
        }
        var key = try await dataKey(for: marker, making: false)
        defer { ChatSealing.wipe(&key) }
        let (sealed, check) = try open(key)
        try await withLock { () throws(StorageError) in
            try await ChatSealingMarker(phase: .unsealing, keyCheck: check).write(plain)
        }
        let (rewritten, total, unreadable) = try await rewrite(progress) { (id) throws(StorageError) in
            try await sealed.unseal(id)
        }
        try await withLock { () throws(StorageError) in
            try await ChatSealingMarker(phase: .plain, keyCheck: nil).write(plain)
        }
        removeIndex()
        return Outcome(rewritten: rewritten, total: total, unreadable: unreadable, firstSealing: false)
    }

    // MARK: - Steps

    /// The chats' data key: the one `marker` names (else the key is gone: an error), or,
    /// for a store never sealed and `making`, the keyring's (made and stored when it has
    /// none).
    private func dataKey(for marker: ChatSealingMarker?, making: Bool) async throws(StorageError) -> [UInt8] {
        if let refusal = keys.refusal { throw Self.failure(ChatSealing.lockedLine(refusal)) }
        guard keys.store.protection.persists else {
            throw Self.failure(
                "no keyring answers, so there is no key to seal the chats under; run keep where a Secret Service "
                    + "answers")
        }
        var key: [UInt8]
        do {
            let name = try KeyName(ChatSealing.keyName)
            key = try await keys.store.load(name) ?? []
            if let marker, marker.needsKey {
                guard let check = try? keys.sealing.sealer(for: key).keyCheck, marker.names(check) else {
                    ChatSealing.wipe(&key)
                    throw Self.failure(ChatSealing.keyGoneLine)
                }
            } else if making, key.count != keys.sealing.keyCount {
                key = try keys.sealing.makeKey()
                try await keys.store.store(name, key)
            }
        } catch let error as StorageError {
            throw error
        } catch let error as SecretsError {
            throw Self.failure(ChatSealing.lockedLine(error))
        } catch {
            throw Self.failure("no key could be made: \(error)")
        }
        return key
    }

    private func open(_ key: [UInt8]) throws(StorageError) -> (SealedStorage, [UInt8]) {
        do {
            return (
                try SealedStorage(plain, dataKey: key, sealing: ChatSealing.sealedNamespaces),
                try keys.sealing.sealer(for: key).keyCheck
            )
        } catch {
            throw Self.failure("no sealer could be made: \(error)")
        }
    }

    /// Rewrites each chat and draft with `change`, each under the store's lock; a value
    /// that cannot be read is left as it is and named.
    private func rewrite(
        _ progress: @Sendable (Int, Int) -> Void, _ change: (StorageKey) async throws(StorageError) -> Bool
    ) async throws(StorageError) -> (rewritten: Int, total: Int, unreadable: [String]) {
        var keys: [StorageKey] = []
        for namespace in [Namespace.chats, .drafts, .history] {
            keys += try await plain.listIds(namespace).map { StorageKey(namespace, $0) }
        }
        var rewritten = 0
        var unreadable: [String] = []
        for (done, key) in keys.enumerated() {
            do throws(StorageError) {
                let changed = try await withLock { () throws(StorageError) in try await change(key) }
                if changed { rewritten += 1 }
            } catch  where error.isOneFilesProblem {
                unreadable.append("\(key): \(error)")
            }
            progress(done + 1, keys.count)
        }
        return (rewritten, keys.count, unreadable)
    }

    private func withLock<T>(_ body: () async throws(StorageError) -> T) async throws(StorageError) -> T {
        let held = try await lock.acquire()
        defer { held.release() }
        return try await body()
    }

    /// The chat index and its journal files: a cache, rebuilt by the next listing.
    private func removeIndex() {
        let path = (root as NSString).appendingPathComponent(ChatIndex.fileName)
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    private static func failure(_ reason: String) -> StorageError {
        StorageError(code: .unavailable, operation: "reseal the chats", reason: reason)
    }

}
