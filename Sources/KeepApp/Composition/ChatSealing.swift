import KeepPorts
import KeepSealed

/// Whether this run's chats are sealed, decided once per launch from the data root's
/// ``ChatSealingMarker`` and the chats' data key in the key store.
///
/// The chats' data key is a key of its own (``keyName``), distinct from kept data's. Unlike
/// kept data, a key that cannot be had never deletes a chat: the chats are then out of
/// reach (``locked(_:)``, ``keyGone``) and every command that reads or writes one says so
/// and changes nothing, until the keyring is unlocked or `keep recovery import` puts the
/// key back.
///
/// ``open(_:backend:lock:)`` promises:
/// - A root with no marker and no chat or draft, on a keyring that answers, is sealed
///   from its first chat: the key is loaded (or made and stored), then the marker is
///   written, under the store's lock, before any sealed value.
/// - A root with no marker that holds chats is plain until `keep chats seal`; so is any
///   root on a machine whose keyring does not answer (nothing is written then).
/// - A marker that needs a key and a keyring that refuses (locked), cannot be reached or
///   fails is ``locked(_:)``; a key that is absent or not the one the marker names is
///   ``keyGone``.
package enum ChatSealing: Sendable {
    /// Sealed under the chats' data key: every value written now is sealed. `phase` is
    /// ``ChatSealingMarker/Phase/sealing`` or ``ChatSealingMarker/Phase/unsealing`` while a
    /// `keep chats seal` or `unseal` is part-way.
    case sealed(phase: ChatSealingMarker.Phase)
    /// Plain, and why (one clause).
    case plain(String)
    /// Sealed, and the keyring holding the key cannot be asked now.
    case locked(SecretsError)
    /// Sealed under a key this keyring does not have.
    case keyGone

    /// The name of the chats' data key in the key store.
    package static let keyName = "chats-data-key"

    /// The state in a word or two, for JSON: `sealed`, `plain`, `part-way`, `locked`,
    /// `key gone`.
    package var name: String {
        switch self {
        case .sealed(let phase): phase == .sealed ? "sealed" : "part-way"
        case .plain: "plain"
        case .locked: "locked"
        case .keyGone: "key gone"
        }
    }

    /// Whether the chats can be read and written this run.
    package var isReachable: Bool {
        switch self {
        case .sealed, .plain: true
        case .locked, .keyGone: false
        }
    }

    /// One line for `keep`, `keep settings` and `keep doctor`.
    package var summary: String {
        switch self {
        case .sealed(.sealing):
            "part-way sealed: `keep chats seal` was interrupted; run it again to seal the rest (every chat reads "
                + "meanwhile)"
        case .sealed(.unsealing):
            "part-way plain: `keep chats unseal` was interrupted; run it again to finish (every chat reads meanwhile)"
        case .sealed:
            "sealed under the chats' data key in the keyring (chats, drafts); `keep recovery export FILE` makes a "
                + "recovery file"
        case .plain(let why): "not sealed: \(why)"
        case .locked(let error): Self.lockedLine(error)
        case .keyGone: Self.keyGoneLine
        }
    }

    /// What a chat command says when the chats are sealed and the keyring cannot be asked.
    static func lockedLine(_ error: SecretsError) -> String {
        let what = error.code == .locked ? "the keyring is locked" : "their key cannot be read (\(error))"
        return "the chats are sealed and \(what); unlock the keyring and run keep again (nothing was changed)"
    }

    /// What a chat command says when the key the chats are sealed under is gone.
    static let keyGoneLine =
        "the chats are sealed under a key this keyring does not have; `keep recovery import FILE` brings it back "
        + "(nothing was changed)"

    /// The error a chat command meets when the chats are out of reach, naming `namespace`.
    func refusal(_ namespace: Namespace) -> StorageError? {
        let reason: String
        switch self {
        case .sealed, .plain: return nil
        case .locked(let error): reason = Self.lockedLine(error)
        case .keyGone: reason = Self.keyGoneLine
        }
        return StorageError(code: .unavailable, operation: "open sealed \(namespace)", reason: reason)
    }

    /// The namespaces the chats' data key seals.
    package static let sealedNamespaces: Set<Namespace> = [.chats, .drafts]

    /// Decides this launch's state for the store `storage` (the file store, plain) with the
    /// key store of `backend`, and answers the store the app uses: `storage` itself when
    /// plain, a ``/KeepSealed/SealedStorage`` over it when sealed, and one that refuses the
    /// chats' namespaces (and passes settings through) when they are out of reach.
    package static func open(
        _ storage: any StoragePort, backend: @Sendable () async -> SecretsBackend, lock: StoreLock
    ) async throws(StorageError) -> (ChatSealing, any StoragePort) {
        var marker = try await ChatSealingMarker.read(storage)
        if marker == nil {
            let keys = await backend()
            guard keys.keyStore.protection.persists, keys.keyringRefusal == nil else {
                return (.plain("no keyring answers, so there is no key to seal them under"), storage)
            }
            let held = try await lock.acquire()
            defer { held.release() }
            marker = try await ChatSealingMarker.read(storage)
            if marker == nil {
                return try await decideNew(storage, keys.keyStore)
            }
        }
        guard let marker, marker.needsKey else {
            return (.plain("`keep chats seal` seals them under a key in the keyring"), storage)
        }
        let keys = await backend()
        if let refusal = keys.keyringRefusal ?? (keys.keyStore.protection.persists ? nil : keys.keyringUnavailable) {
            return out(.locked(refusal), storage)
        }
        var key: [UInt8]
        do {
            key = try await keys.keyStore.load(try KeyName(keyName)) ?? []
        } catch {
            return out(.locked(error), storage)
        }
        defer { wipe(&key) }
        guard let check = try? Platform.sealing.sealer(for: key).keyCheck, marker.names(check) else {
            return out(.keyGone, storage)
        }
        return (.sealed(phase: marker.phase), try sealed(storage, key))
    }

    /// A root no launch decided yet, under the lock: plain when it already holds chats,
    /// else sealed under the key the key store has (made and stored when it has none).
    private static func decideNew(
        _ storage: any StoragePort, _ keyStore: any KeyStorePort
    ) async throws(StorageError) -> (ChatSealing, any StoragePort) {
        let held = try await storage.listIds(.chats).count + storage.listIds(.drafts).count
        guard held == 0 else {
            try await ChatSealingMarker(phase: .plain, keyCheck: nil).write(storage)
            return (.plain("they were kept before a keyring answered; `keep chats seal` seals them"), storage)
        }
        var key: [UInt8]
        do {
            let name = try KeyName(keyName)
            key = try await keyStore.load(name) ?? []
            if key.count != Platform.sealing.keyCount {
                key = try Platform.sealing.makeKey()
                try await keyStore.store(name, key)
            }
        } catch {
            return (.plain("the keyring did not give a key to seal them under (\(error))"), storage)
        }
        defer { wipe(&key) }
        let check: [UInt8]
        do { check = try Platform.sealing.sealer(for: key).keyCheck } catch {
            return (.plain("no sealer could be made (\(error))"), storage)
        }
        try await ChatSealingMarker(phase: .sealed, keyCheck: check).write(storage)
        return (.sealed(phase: .sealed), try sealed(storage, key))
    }

    private static func sealed(_ storage: any StoragePort, _ key: [UInt8]) throws(StorageError) -> any StoragePort {
        do {
            return try SealedStorage(storage, dataKey: key, sealing: sealedNamespaces)
        } catch {
            throw StorageError(code: .io, operation: "open sealed chats", reason: error.description)
        }
    }

    private static func out(_ state: ChatSealing, _ storage: any StoragePort) -> (ChatSealing, any StoragePort) {
        (state, RefusingStorage(storage, refusing: sealedNamespaces) { state.refusal($0) })
    }

    private static func wipe(_ key: inout [UInt8]) {
        key.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}
