import KeepChatIndex
import KeepFileStore
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
/// ``open(_:keys:root:)`` promises:
/// - A root with no marker and no chat or draft, on a keyring that answers, is sealed
///   from its first chat: at the first write into the chats or drafts, the key is loaded
///   (or made and stored), then the marker is written, under a lock of its own, before
///   any sealed value.
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
    /// No chat yet, on a keyring that answers: the first one is sealed, under a key made
    /// then (or the one the keyring already holds).
    case notYet
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
        case .notYet: "not yet"
        case .locked: "locked"
        case .keyGone: "key gone"
        }
    }

    /// Whether the chats can be read and written this run.
    package var isReachable: Bool {
        switch self {
        case .sealed, .plain, .notYet: true
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
            "sealed under the chats' data key in the keyring (chats, drafts, the lines typed); `keep recovery export FILE` makes a "
                + "recovery file"
        case .plain(let why): "not sealed: \(why)"
        case .notYet:
            "no chat yet; the first is sealed under the chats' data key, which the keyring holds (made at first use)"
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
        case .sealed, .plain, .notYet: return nil
        case .locked(let error): reason = Self.lockedLine(error)
        case .keyGone: reason = Self.keyGoneLine
        }
        return StorageError(code: .unavailable, operation: "open sealed \(namespace)", reason: reason)
    }

    /// The namespaces the chats' data key seals.
    package static let sealedNamespaces: Set<Namespace> = [.chats, .drafts, .history]

    /// What a launch (or a first chat) decided: the state, the store the app uses, and how
    /// the chat index seals what it holds.
    package struct Opened: Sendable {
        /// The chats' state.
        package let state: ChatSealing
        /// The store: plain, sealing the chats' namespaces, refusing them, or deciding at the
        /// first chat.
        package let storage: any StampedStorage
        /// The chat index's sealing: on the chats' key when they are sealed, plain otherwise.
        package let indexing: any ChatIndexSealing

        /// The chats in `state`, kept in `storage`, indexed with `indexing`.
        package init(state: ChatSealing, storage: any StampedStorage, indexing: any ChatIndexSealing) {
            self.state = state
            self.storage = storage
            self.indexing = indexing
        }
    }

    /// Decides this launch's state for the store `storage` (the file store, plain) with the
    /// chats' keys `keys` give, and answers the store the app uses: `storage` itself when
    /// plain, a ``/KeepSealed/SealedStorage`` over it when sealed (either writing the chats
    /// only while the marker stays the one of the launch: ``MarkerCheckedStorage``), one that refuses the
    /// chats' namespaces (and passes settings through) when they are out of reach, and, for
    /// a root no launch decided yet on a keyring that answers, a ``FirstChatSealing`` that
    /// decides at its first chat (``notYet``): a command that only reads or describes writes
    /// no key and no marker.
    package static func open(
        _ storage: any StampedStorage, keys: @Sendable () async -> ChatKeys, root: String
    ) async throws(StorageError) -> Opened {
        guard let marker = try await ChatSealingMarker.read(storage) else {
            let keys = await keys()
            guard keys.store.protection.persists, keys.refusal == nil else {
                return plain(.plain("no keyring answers, so there is no key to seal them under"), storage, marker: nil)
            }
            return Opened(
                state: .notYet, storage: FirstChatSealing(storage, keys: keys, root: root),
                indexing: PlainChatIndexing())
        }
        return await resolve(marker, storage, keys: await keys())
    }

    /// The state a root's `marker` says, with the key `keys` hold.
    static func resolve(_ marker: ChatSealingMarker, _ storage: any StampedStorage, keys: ChatKeys) async -> Opened {
        guard marker.needsKey else {
            return plain(.plain("`keep chats seal` seals them under a key in the keyring"), storage, marker: marker)
        }
        if let refusal = keys.refusal ?? (keys.store.protection.persists ? nil : keys.unavailable) {
            return out(.locked(refusal), storage)
        }
        var key: [UInt8]
        do {
            key = try await keys.store.load(try KeyName(keyName)) ?? []
        } catch {
            return out(.locked(error), storage)
        }
        defer { wipe(&key) }
        guard let check = try? keys.sealing.sealer(for: key).keyCheck, marker.names(check) else {
            return out(.keyGone, storage)
        }
        do {
            return try sealed(.sealed(phase: marker.phase), storage, key, marker: marker)
        } catch {
            return out(
                .locked(SecretsError(code: .backend, operation: "open sealed chats", detail: "\(error)")), storage)
        }
    }

    /// Decides a root that had no marker at launch, at its first chat, under the lock of
    /// the decision (`<root>/chats-sealing.lock`, not the store's, which the writer may
    /// hold): another process's marker, if one was written since, else sealed from this
    /// first chat (plain when the root holds chats already).
    static func decide(
        _ storage: any StampedStorage, keys: ChatKeys, root: String
    ) async throws(StorageError) -> Opened {
        try DataRoot.makeDirectory(root)
        let path = root.hasSuffix("/") ? root + "chats-sealing.lock" : root + "/chats-sealing.lock"
        try FileKind.refuseUnsafe(path)
        let held = try await FileLock.acquire(path)
        defer { held.release() }
        if let marker = try await ChatSealingMarker.read(storage) {
            return await resolve(marker, storage, keys: keys)
        }
        let count = try await storage.listIds(.chats).count + storage.listIds(.drafts).count
        guard count == 0 else {
            let marker = ChatSealingMarker(phase: .plain, keyCheck: nil)
            try await marker.write(storage)
            return plain(
                .plain("they were kept before a keyring answered; `keep chats seal` seals them"), storage,
                marker: marker)
        }
        var key: [UInt8]
        do {
            let name = try KeyName(keyName)
            key = try await keys.store.load(name) ?? []
            if key.count != keys.sealing.keyCount {
                key = try keys.sealing.makeKey()
                try await keys.store.store(name, key)
            }
        } catch {
            return plain(.plain("the keyring did not give a key to seal them under (\(error))"), storage, marker: nil)
        }
        defer { wipe(&key) }
        let marker: ChatSealingMarker
        let opened: Opened
        do {
            marker = ChatSealingMarker(phase: .sealed, keyCheck: try keys.sealing.sealer(for: key).keyCheck)
            opened = try sealed(.sealed(phase: .sealed), storage, key, marker: marker)
        } catch {
            return plain(.plain("no sealer could be made (\(error))"), storage, marker: nil)
        }
        // The marker before the first sealed value: no sealed chat is ever found without it.
        try await marker.write(storage)
        return opened
    }

    /// The chats sealed under `key`, written only while the root's marker is `marker`.
    private static func sealed(
        _ state: ChatSealing, _ storage: any StampedStorage, _ key: [UInt8], marker: ChatSealingMarker
    ) throws(SealingError)
        -> Opened
    {
        Opened(
            state: state,
            storage: MarkerCheckedStorage(
                try SealedStorage(storage, dataKey: key, sealing: sealedNamespaces), launched: marker),
            indexing: try SealedChatIndexing(dataKey: key))
    }

    /// The chats plain, written only while the root's marker is `marker` (`nil`: none).
    private static func plain(_ state: ChatSealing, _ storage: any StampedStorage, marker: ChatSealingMarker?) -> Opened
    {
        Opened(state: state, storage: MarkerCheckedStorage(storage, launched: marker), indexing: PlainChatIndexing())
    }

    private static func out(_ state: ChatSealing, _ storage: any StampedStorage) -> Opened {
        Opened(
            state: state,
            storage: RefusingStorage(storage, refusing: sealedNamespaces) { state.refusal($0) },
            indexing: PlainChatIndexing())
    }

    /// Overwrites a copy of a key with zeros, once it is used.
    static func wipe(_ key: inout [UInt8]) {
        key.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}
