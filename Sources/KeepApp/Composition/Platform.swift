import KeepCore
import KeepEngines
import KeepFileStore
import KeepPorts
import KeepSealed

#if canImport(KeepSecretService)
    import KeepSecretService
#endif

/// Platform detection: which adapters this machine gets. The only code, besides the
/// benchmarks, that constructs a storage, secrets, key-store or sealing adapter.
///
/// The Linux adapters (the Secret Service, libcrypto's sealer) are Linux-only in the
/// manifest; on another platform its own pair (a Keychain adapter, a CryptoKit sealer)
/// goes in the `#else` branches here, and nowhere else.
package enum Platform {
    /// The app's store under `root`: the `FileStore`, wrapped so that before its first
    /// use it copies, once, what an older build left in `<root>/store.json`.
    ///
    /// The legacy whole-blob store is only the source of that copy, never a fallback: after
    /// it, every call goes to the file store alone. A failed copy, or a legacy store that
    /// cannot even be opened, goes to `onMigrationError` and the file store is used all
    /// the same (the next launch tries again). Throws when the file store itself cannot be
    /// opened (a root that is not an absolute path, a namespace directory that cannot be
    /// listed): that is a boot failure.
    ///
    /// The copy reads `store.json` once (a `BlobSnapshot`), so it takes time in
    /// proportion to the values; `onMigrationReport` hears, once, from the run that
    /// finishes it, and `onMigrationProgress` of each value copied.
    package static func storageFor(
        root: String, onMigrationError: @escaping @Sendable (MigrationError) -> Void,
        onMigrationReport: @escaping @Sendable (MigrationReport) -> Void = { _ in },
        onMigrationProgress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(StorageError) -> any StoragePort {
        let store = try FileStore(root: root)
        let legacy: BlobSnapshot
        do {
            legacy = try BlobSnapshot(root: root)
        } catch {
            onMigrationError(MigrationError(copied: 0, failures: [error]))
            return store
        }
        return PreparedStorage(
            store, migratingFrom: legacy, onError: onMigrationError, onReport: onMigrationReport,
            progress: onMigrationProgress)
    }

    /// How kept data is sealed on this platform: AES-256-GCM on libcrypto. The vault and the
    /// in-memory fallback both take it from here, so a platform's own cryptography is one
    /// line to change.
    #if os(Linux)
        static let sealing: any DataKeySealing = AESGCMSealing()
    #else
        #error("Keep has no sealer for this platform yet: a CryptoKit DataKeySealing goes here")
    #endif

    /// The keychain for this launch: the Secret Service on the session bus, probed once.
    /// When it answers but refuses (locked, no default collection, failing) it is still
    /// the keychain, with the refusal as ``SecretsBackend/keyringRefusal``: a locked keyring
    /// is never mistaken for an empty one. Only with no session bus, or no Secret Service
    /// on it, is it process memory, seeded from the conventional environment variables
    /// (`OPENAI_API_KEY` for `openai`/`default`, and so on), with the probe's typed error
    /// as the reason. The key store follows the same choice.
    ///
    /// With no session bus in `environment` there is nothing to probe, and nothing
    /// is started to find one.
    package static func secretsFor(_ environment: LaunchEnvironment) async -> SecretsBackend {
        let reason: SecretsError
        #if canImport(KeepSecretService)
            if let address = environment.sessionBusAddress {
                do {
                    let secrets = try SecretServiceSecrets(busAddress: address)
                    let keyStore = try SecretServiceKeyStore(busAddress: address)
                    do {
                        try await secrets.checkAvailable()
                        return SecretsBackend(secrets: secrets, keyStore: keyStore)
                    } catch  where !usesProcessMemory(error.code) {
                        return SecretsBackend(secrets: secrets, keyStore: keyStore, keyringRefusal: error)
                    }
                } catch {
                    reason = error
                }
            } else {
                reason = SecretsError(
                    code: .noSessionBus, operation: "connect",
                    detail: "there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no "
                        + "$XDG_RUNTIME_DIR/bus); log in to a desktop session, or run keep under `dbus-run-session`")
            }
        #else
            reason = SecretsError(
                code: .noService, operation: "connect", detail: "keep has no keychain adapter for this platform yet")
        #endif
        let keys = environment.environmentKeys
        return SecretsBackend(
            secrets: MemorySecrets(
                Dictionary(keys.map { ($0.ref, $0.value) }, uniquingKeysWith: { first, _ in first })),
            keyStore: MemoryKeyStore(), keyringUnavailable: reason, environmentKeys: keys.map(\.variable))
    }

    /// Whether a probe that failed with `code` leaves keep on process memory: only when
    /// there is no keyring to ask at all (no session bus, no Secret Service on it).
    static func usesProcessMemory(_ code: SecretsError.Code) -> Bool {
        code == .noSessionBus || code == .noService
    }

    /// The engine `id` names in ``EngineCatalog``, built on `settings` and `secrets` (the
    /// remote engine reads its key per request from the ref the `keySlot` and `keyAccount`
    /// settings name). Throws ``EngineError/Code/configuration`` for an id no engine has, or
    /// settings that do not make the engine.
    ///
    /// `keyringUnavailable`, when no keyring answers this run, goes to the remote engine's
    /// advice for a server that wants a key (``RemoteEngine/keyUnreadable``).
    package static func engineFor(
        _ id: String, settings: SettingsStore, secrets: any SecretsPort, keyringUnavailable: SecretsError? = nil,
        server: ServerProfile? = nil
    ) throws(EngineError) -> any ChatEngine {
        guard let kind = EngineCatalog.kind(id) else {
            throw EngineError(
                .configuration,
                "there is no engine called \(StorageError.quoted(id)); the engines are "
                    + EngineCatalog.all.map(\.id).joined(separator: ", "))
        }
        let asked: ServerProfile
        if let server { asked = server } else { asked = try carriedServer(settings) }
        return try kind.make(
            EngineKind.Setup(
                settings: settings, secrets: secrets, keyringUnavailable: keyringUnavailable, server: asked))
    }

    /// The server the old settings describe, when no other is given (``SettingRegistry/carriedServer(_:)``).
    private static func carriedServer(_ settings: SettingsStore) throws(EngineError) -> ServerProfile {
        do {
            return try SettingRegistry.carriedServer(settings)
        } catch {
            throw EngineError(.configuration, error.description)
        }
    }
}
