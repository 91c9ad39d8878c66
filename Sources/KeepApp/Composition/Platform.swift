import KeepCore
import KeepEngines
import KeepFileStore
import KeepPorts
import KeepSealed

#if os(Linux)
    import KeepSecretService
#endif

/// Platform detection: which adapters this machine gets. The only code, besides the
/// benchmarks, that constructs a storage, secrets, key-store or sealing adapter.
///
/// What differs by platform is one `#if` at the end of this file: on Linux the Secret
/// Service (the keychain and the key store) and libcrypto's sealer, Linux-only in the
/// manifest. Apple platforms are not there yet: their pair (a Keychain adapter, a CryptoKit
/// sealer) is not written, so the app stops the build there, in that branch and nowhere
/// else, saying so; the libraries it is built on build without it.
package enum Platform {
    /// The app's store under `root`: the ``/KeepFileStore/FileStore``, wrapped so that before its first
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
    ) throws(StorageError) -> any StampedStorage {
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
        switch await probeKeychain(environment) {
        case .success(let backend): return backend
        case .failure(let error): reason = error
        }
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
    /// advice for a server that wants a key (``RemoteEngine/keyUnreadable``); `windows` is
    /// where it learns a context window its server's setting does not give
    /// (``RemoteEngine/windows``).
    package static func engineFor(
        _ id: String, settings: SettingsStore, secrets: any SecretsPort, keyringUnavailable: SecretsError? = nil,
        server: ServerProfile? = nil, windows: (any ContextWindowSource)? = nil
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
                settings: settings, secrets: secrets, keyringUnavailable: keyringUnavailable, server: asked,
                windows: windows))
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

// MARK: - The one platform branch

#if os(Linux)
    extension Platform {
        /// How kept data is sealed: AES-256-GCM on libcrypto. The vault and the in-memory
        /// fallback both take it from here.
        static let sealing: any DataKeySealing = AESGCMSealing()

        /// The Secret Service on the session bus, when there is one and it answers (or
        /// answers but refuses: locked, no default collection, failing); else why keep is
        /// left on process memory (no session bus, no Secret Service on it).
        static func probeKeychain(_ environment: LaunchEnvironment) async -> Result<SecretsBackend, SecretsError> {
            guard let address = environment.sessionBusAddress else {
                return .failure(
                    SecretsError(
                        code: .noSessionBus, operation: "connect",
                        detail: "there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and there is no "
                            + "$XDG_RUNTIME_DIR/bus); log in to a desktop session, or run keep under `dbus-run-session`"
                    ))
            }
            do {
                let secrets = try SecretServiceSecrets(busAddress: address)
                let keyStore = try SecretServiceKeyStore(busAddress: address)
                do {
                    try await secrets.checkAvailable()
                    return .success(SecretsBackend(secrets: secrets, keyStore: keyStore))
                } catch  where !usesProcessMemory(error.code) {
                    return .success(SecretsBackend(secrets: secrets, keyStore: keyStore, keyringRefusal: error))
                }
            } catch {
                return .failure(error)
            }
        }
    }
#else
    // Not yet: Apple platforms need a Keychain `SecretsPort` and `KeyStorePort` and a
    // CryptoKit `DataKeySealing` here, in this branch, as `sealing` and `probeKeychain(_:)`.
    #error(
        "keep's app has no adapters for this platform yet: a Keychain secrets and key store and a CryptoKit sealer go in Platform.swift's platform branch (the libraries build without them)"
    )
#endif
