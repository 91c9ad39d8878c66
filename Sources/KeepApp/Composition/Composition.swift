import Foundation
import KeepChatIndex
import KeepChatSealing
import KeepConversation
import KeepCore
import KeepEngines
import KeepFileStore
import KeepKeptData
import KeepPorts

/// The composition root of `keep`: everything a command runs on, each part built the
/// first time a command asks for it and at most once per process.
///
/// A command that lists chats probes the keyring only when the chats are sealed (for
/// their key) or no launch decided yet whether they are; one that shows settings probes
/// it once, however often it asks. The parts, and where they come from:
///
/// - ``storage()``:
///   ``Platform/storageFor(root:onMigrationError:onMigrationReport:onMigrationProgress:)``
///   under the data root the environment names, sealed for the chats when
///   ``chatSealing()`` says so; a failed migration from `store.json` is passed to `warn`.
/// - ``secrets()``: ``Platform/secretsFor(_:)``, the keyring or process memory.
/// - ``boot()``: the settings loaded (KeepCore's `boot`), or the failure for the crash
///   screen.
/// - ``engine(for:)`` and ``turns(on:)``: the chosen engine, and the turn runner on it.
/// - ``kept(creating:)``: kept data (readings, markers, preferences), sealed in
///   `kept.sqlite` under the key the keyring holds, or in memory when nothing may be kept;
///   see ``KeptData``. Its notices go to `warn`.
package actor Composition {
    /// The engine a fresh install starts on.
    package static let defaultEngine = EngineCatalog.defaultKind.id

    /// The environment the process was launched with: the only one any part reads.
    package nonisolated let environment: LaunchEnvironment
    private let warn: @Sendable (String) -> Void
    private let progress: MigrationProgress
    private var opening: Task<Result<ChatSealing.Opened, StorageError>, Never>?
    private var decision: Result<ChatSealing.Opened, StorageError>?
    private var probe: Task<SecretsBackend, Never>?
    private var booted: BootResult?
    private var keptOpening: Task<Result<KeptData, KeptError>, Never>?
    private var book: ServerBook?

    /// The root for `environment`; `warn` receives warnings to show (one line each), such
    /// as a migration that did not finish.
    ///
    /// `progress`, when given, shows a long one-time migration's progress in place (a
    /// line, then `nil` to clear it); pass it only when standard error is a terminal.
    package init(
        environment: LaunchEnvironment, progress: (@Sendable (String?) -> Void)? = nil,
        warn: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.warn = warn
        self.progress = MigrationProgress(show: progress)
    }

    /// The data root; throws when the environment names none (see ``LaunchEnvironment/dataRoot()``).
    package nonisolated func dataRoot() throws(StorageError) -> String {
        try environment.dataRoot()
    }

    /// The app's store, opened on first use: the file store under the data root, sealed
    /// for the chats when ``chatSealing()`` says so (see ``ChatSealing``).
    package func storage() async throws(StorageError) -> any StampedStorage {
        try await opened().storage
    }

    /// Whether this run's chats are sealed, plain, part-way, not decided yet, or out of
    /// reach (the keyring locked, the key gone).
    package func chatSealing() async throws(StorageError) -> ChatSealing {
        try await opened().state
    }

    /// How the chat index seals what it holds: on the chats' key when they are sealed.
    package func chatIndexing() async throws(StorageError) -> any ChatIndexSealing {
        try await opened().indexing
    }

    /// Decides, for a root no launch decided yet, that its chats are sealed from now on
    /// (or plain): a conversation is about to be kept, and the index must seal as the
    /// chats do from its first entry.
    package func decideChatSealing() async throws(StorageError) {
        let current = try await opened()
        guard case .notYet = current.state, let first = current.storage as? FirstChatSealing else { return }
        let decided = try await first.decide()
        // The store stays the deciding one (others hold it); it now goes to the decided store.
        decision = .success(ChatSealing.Opened(state: decided.state, storage: first, indexing: decided.indexing))
    }

    private func opened() async throws(StorageError) -> ChatSealing.Opened {
        if let decision { return try decision.get() }
        let task = opening ?? Task { await openStorage() }
        opening = task
        let result = await task.value
        if decision == nil { decision = result }
        return try (decision ?? result).get()
    }

    private func openStorage() async -> Result<ChatSealing.Opened, StorageError> {
        let warn = warn
        let progress = progress
        do throws(StorageError) {
            let root = try dataRoot()
            let store = try Platform.storageFor(
                root: root,
                onMigrationError: { error in
                    progress.finish()
                    warn("warning: \(error)")
                },
                onMigrationReport: { report in
                    progress.finish()
                    if let notice = report.notice { warn("note: \(notice)") }
                },
                onMigrationProgress: { done, total in progress.update(done, of: total) })
            return .success(try await ChatSealing.open(store, keys: { await self.secrets().chatKeys }, root: root))
        } catch {
            return .failure(error)
        }
    }

    /// `keep chats seal` and `unseal` over the plain file store under the data root, with
    /// this run's key store.
    package func resealing() async throws(StorageError) -> ChatResealing {
        let root = try dataRoot()
        let backend = await secrets()
        let warn = warn
        let plain = try Platform.storageFor(root: root, onMigrationError: { warn("warning: \($0)") })
        return ChatResealing(plain: plain, keys: backend.chatKeys, lock: StoreLock(root: root), root: root)
    }

    /// The keychain for this run, probed once.
    package func secrets() async -> SecretsBackend {
        let task = probe ?? Task { [environment] in await Platform.secretsFor(environment) }
        probe = task
        return await task.value
    }

    /// The booted app core, or why it could not boot: a store that cannot be opened or
    /// whose settings cannot be read is `BootResult.failed(reason:detail:)`.
    package func boot() async -> BootResult {
        if let booted { return booted }
        let result: BootResult
        do {
            let storage = try await storage()
            result = await KeepCore.boot(
                storage: storage, secrets: await secrets().secrets, defs: SettingRegistry.defs,
                defaultEngine: Self.defaultEngine)
        } catch {
            result = .failed(reason: .storageUnavailable, detail: error.description)
        }
        // Started on the defaults: say so once, here, rather than let a change fail unexplained.
        if case .ready(let core) = result {
            switch core.settings.health {
            case .unreadable, .refused: warn("warning: \(core.settings.health)")
            case .fine, .keptAside: break
            }
        }
        booted = result
        return result
    }

    /// The lock every read-modify-write of the store takes.
    package func storeLock() throws(StorageError) -> StoreLock {
        StoreLock(root: try dataRoot())
    }

    /// The engine `core` starts on (its `engineId` setting, else the default), set up from
    /// its settings; a remote one asks `choice`'s server (the default server when not given),
    /// and a choice that names a server is answered by one whatever `engineId` says. A server
    /// without a budget of its own learns one from its model list, kept in kept data
    /// (``KeptWindows``: opened only when a window is asked for).
    package func engine(for core: AppCore, choice: TurnChoice? = nil) async throws(EngineError) -> any ChatEngine {
        let backend = await secrets()
        let id = choice?.named == true ? RemoteEngine.engineId : core.engineId
        var server = choice?.server
        if server == nil, id == RemoteEngine.engineId { server = await serverBook(core).defaultServer }
        return try Platform.engineFor(
            id, settings: core.settings, secrets: backend.secrets, keyringUnavailable: backend.keyringUnavailable,
            server: server, windows: KeptWindows { [self] in try? await self.kept().engines })
    }

    /// The servers, aliases and roles, read once per run after carrying the old server
    /// settings into the servers file (once ever, ``ProfilesStore/migrate(carrying:finished:)``),
    /// under the store's lock. A failure is passed to `warn` and leaves this run on what
    /// could be read (the old settings standing in for the server `default`); the next
    /// launch tries again.
    package func serverBook(_ core: AppCore) async -> ServerBook {
        if let book { return book }
        var profiles = Profiles()
        let carried =
            (try? SettingRegistry.carriedServer(core.settings))
            ?? ServerProfile(name: Profiles.defaultName, url: SettingRegistry.baseUrl.defaultValue.string ?? "")
        do {
            let store = ProfilesStore(storage: try await storage())
            let held = try await storeLock().acquire()
            defer { held.release() }
            do throws(ProfilesError) {
                _ = try await store.migrate(carrying: carried, finished: UTCTime.text(Date()))
            } catch {
                warn(
                    "warning: the server settings were not carried into the servers file (tried again next time): \(error)"
                )
            }
            profiles = try await store.load()
        } catch {
            warn("warning: \(error)")
        }
        let made = ServerBook(profiles: profiles, carried: carried)
        book = made
        return made
    }

    /// Forgets the servers read this run, after a command changed the file.
    package func serversChanged() {
        book = nil
    }

    /// Kept data for this run, opened (and launched: migrations, retention, a key-loss
    /// notice) on first use. Throws only when not even memory can be sealed.
    ///
    /// Without `creating`, for a command that only describes kept data (`keep settings`,
    /// `keep doctor`): when nothing was ever kept, no key is made and no file written
    /// (``KeptData/Status/notYet(path:)``).
    package func kept(creating: Bool = true) async throws(KeptError) -> KeptData {
        if !creating, keptOpening == nil,
            let peek = try await KeptData.peek(
                root: try? environment.dataRoot(), keys: await secrets().keyStore,
                http: TransportHTTP(userAgent: KeepVersion.userAgent), warn: warn)
        {
            return peek
        }
        let task =
            keptOpening
            ?? Task { [environment, warn] in
                let backend = await secrets()
                do throws(KeptError) {
                    return .success(
                        try await KeptData.open(
                            root: try? environment.dataRoot(), keys: backend.keyStore,
                            keyringUnavailable: backend.keyringUnavailable,
                            http: TransportHTTP(userAgent: KeepVersion.userAgent), warn: warn))
                } catch {
                    return .failure(error)
                }
            }
        keptOpening = task
        return try await task.value.get()
    }

    /// A turn runner on `engine` over this store.
    ///
    /// A root no launch decided yet is decided here (``decideChatSealing()``): the runner
    /// keeps a conversation, and its chat and the index are sealed from the first turn.
    package func turns(on engine: any ChatEngine) async throws(StorageError) -> TurnRunner {
        try await decideChatSealing()
        return TurnRunner(
            storage: try await storage(), lock: try storeLock(), engine: engine, indexRoot: try dataRoot(),
            indexing: try await chatIndexing())
    }
}
