import Foundation
import KeepEngines
import KeepFileStore
import KeepKeptData
import KeepPorts
import KeepSQLite
import KeepSealed

/// Kept data for this run: the owners of readings, markers and preferences, bound to their
/// stores, and the truth about where they keep: sealed in `<root>/kept.sqlite`, or only in
/// this process's memory, and why.
///
/// `open(root:keys:keyringUnavailable:http:warn:)` is the launch of kept data, run once per
/// process by the composition root: the vault decides (the key from the keyring, made on
/// first use; after a key loss, the unreadable rows deleted and a notice told once), each
/// owner's migrations run, and each owner prunes its readings by the retention and rewrites
/// preferences of an older shape. When nothing may be kept (no secure store for the key,
/// the keyring out of reach, the database unusable) the owners keep in memory under a key
/// made for this run, so commands work the same and nothing outlives the process.
package struct KeptData: Sendable {
    /// Where kept data lives this run.
    package enum Status: Sendable, Equatable {
        /// Sealed in the database file at `path`, under a key in the keyring.
        case kept(path: String)
        /// Nothing kept yet: the first use makes the key and the database file at `path`.
        case notYet(path: String)
        /// Nothing is kept between launches, and why.
        case notKept(NotKeptReason)
        /// Nothing is kept this time: the kept-data database or the sealer failed, and how.
        case failed(String)

        /// One line for `keep settings` and `keep doctor`.
        package var summary: String {
            switch self {
            case .kept(let path): "sealed in \(path), under a key in the keyring"
            case .notYet(let path):
                "nothing kept yet; it will be sealed in \(path), under a key the keyring holds (made at first use)"
            case .notKept(let reason): reason.description
            case .failed(let detail): "nothing is kept this time: \(detail)"
            }
        }
    }

    /// Where kept data lives this run, or why nothing is kept.
    package let status: Status
    /// The engines module: readings, markers and preferences about servers.
    package let engines: EnginesKeeper
    /// The chats module: the last open chat.
    package let chats: ChatsKeeper
    /// What each owner did at launch.
    package let launches: [LaunchReport]
    /// The notice that kept data was cleared after a key loss, when this run told it.
    package let notice: KeyLossNotice?

    /// Every module that keeps markers: `keep whatsnew` asks each.
    package var sayWhatIsNew: [any SaysWhatIsNew] { [engines] }
    /// Every module that keeps rows about a server: `keep engines forget` asks each.
    package var forgetServers: [any ForgetsServers] { [engines] }

    /// The kept-data database's name in the data root.
    package static let fileName = "kept.sqlite"

    /// Every file kept data opens under the data root `root`: the database, the journal
    /// files SQLite keeps beside it, and the vault's lock.
    package static func files(in root: String) -> [String] {
        let path = (root as NSString).appendingPathComponent(fileName)
        return [path, path + "-wal", path + "-shm", path + "-journal", path + ".lock"]
    }

    /// Opens kept data under the data root `root` with the data key in `keys`.
    ///
    /// `warn` receives, one line each, what the user must be told: the key-loss notice
    /// (then acknowledged, so it is told once) and preferences an owner could not read.
    /// Throws only when not even memory can be sealed (libcrypto failed).
    ///
    /// `keyringUnavailable` is why `keys` is process memory, when it is: if kept data was
    /// sealed here before, it is then ``NotKeptReason/keyStoreUnavailable(_:)`` (the key is
    /// in a keyring that cannot be reached, and the rows are left exactly as they are),
    /// never "there is no secure store".
    static func open(
        root: String?, keys: any KeyStorePort, keyringUnavailable: SecretsError? = nil, http: any ServerHTTPPort,
        warn: @Sendable (String) -> Void
    ) async throws(KeptError) -> KeptData {
        guard let root else {
            return try await inMemory(.failed("there is no data root"), http: http, warn: warn)
        }
        let path = (root as NSString).appendingPathComponent(fileName)
        // A FIFO, device or socket at a name SQLite or the vault's lock opens would hang the
        // first read (`keep chat`, `doctor`, `engines`, `whatsnew`): refused before any open.
        let vault = DataKeyVault(keys: keys, sealing: Platform.sealing, databasePath: path)
        do throws(StorageError) {
            for file in files(in: root) { try FileKind.refuseUnsafe(file) }
        } catch {
            return try await inMemory(.failed(error.description), http: http, warn: warn)
        }
        if !keys.protection.persists, let keyringUnavailable, FileManager.default.fileExists(atPath: path) {
            return try await inMemory(.notKept(.keyStoreUnavailable(keyringUnavailable)), http: http, warn: warn)
        }
        // No secure store: the vault answers without touching the disk.
        if keys.protection.persists {
            do throws(StorageError) {
                // The database lives in the data root, made durably and never through a symlink.
                try DataRoot.makeDirectory(root)
            } catch {
                return try await inMemory(.failed("\(root) cannot be made: \(error)"), http: http, warn: warn)
            }
        }
        // A damaged database is left exactly as it is: checked read-only first, and never
        // opened for writing (which would checkpoint its WAL over whatever could be saved).
        if let damage = damage(at: path) {
            return try await inMemory(.failed(damage), http: http, warn: warn)
        }
        let state: VaultState
        do {
            state = try await vault.open()
        } catch {
            return try await inMemory(.failed(error.description), http: http, warn: warn)
        }
        let sealer: any SealingPort
        let notice: KeyLossNotice?
        switch state {
        case .kept(let kept, let told):
            sealer = kept
            notice = told
        case .notKept(let reason):
            return try await inMemory(.notKept(reason), http: http, warn: warn)
        }
        let engines: EnginesKeeper
        let chats: ChatsKeeper
        do throws(KeptError) {
            let database: SQLiteDatabase
            do { database = try SQLiteDatabase(path: path) } catch { throw .database("open \(path)", error) }
            engines = EnginesKeeper(store: try await EnginesSQLiteStore.open(database), sealer: sealer, http: http)
            chats = ChatsKeeper(store: try await ChatsSQLiteStore.open(database), sealer: sealer)
        } catch {
            return try await inMemory(.failed(error.description), http: http, warn: warn)
        }
        if let notice {
            warn(notice.description)
            // Told: not again. If this fails, the notice is told again next time.
            try? await vault.acknowledgeNotice()
        }
        return try await launched(.kept(path: path), engines: engines, chats: chats, notice: notice, warn: warn)
    }

    /// Kept data as it stands, for a command that only describes it: when nothing was ever
    /// kept under `root` (no database file) and the key store persists, the owners in
    /// memory with ``Status/notYet(path:)``, and no key made; otherwise `nil` (open it).
    static func peek(
        root: String?, keys: any KeyStorePort, http: any ServerHTTPPort, warn: @Sendable (String) -> Void
    ) async throws(KeptError) -> KeptData? {
        guard let root, keys.protection.persists else { return nil }
        let path = (root as NSString).appendingPathComponent(fileName)
        guard !FileManager.default.fileExists(atPath: path) else { return nil }
        return try await inMemory(.notYet(path: path), http: http, warn: warn)
    }

    /// What SQLite's quick check, run read-only, finds wrong with the database at `path`, in
    /// words; `nil` when it is sound or not there yet (or cannot be checked for another
    /// reason, which opening it then reports).
    static func damage(at path: String) -> String? {
        do throws(SQLiteError) {
            // One line: SQLite's own lines, without its "*** in database main ***" heading.
            let problems = try SQLiteDatabase.quickCheckProblems(at: path, limit: 3)
                .flatMap { $0.split(whereSeparator: \.isNewline) }
                .filter { !$0.hasPrefix("***") }
            guard !problems.isEmpty else { return nil }
            return "\(path) is damaged (SQLite's quick check: \(problems.joined(separator: "; "))); it is left as it is"
        } catch  where error.code == .corrupt {
            return "\(path) is damaged: \(error); it is left as it is"
        } catch {
            return nil
        }
    }

    /// The owners in memory, under a key made for this run and never stored.
    private static func inMemory(
        _ status: Status, http: any ServerHTTPPort, warn: @Sendable (String) -> Void
    ) async throws(KeptError) -> KeptData {
        let sealer: any SealingPort
        do {
            var key = try Platform.sealing.makeKey()
            defer { key.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            sealer = try Platform.sealing.sealer(for: key).sealer
        } catch {
            throw .sealing("make a key for this run", error)
        }
        return try await launched(
            status, engines: EnginesKeeper(store: EnginesMemoryStore(), sealer: sealer, http: http),
            chats: ChatsKeeper(store: ChatsMemoryStore(), sealer: sealer), notice: nil, warn: warn)
    }

    /// Runs each owner's launch and tells `warn` what an owner could not read.
    private static func launched(
        _ status: Status, engines: EnginesKeeper, chats: ChatsKeeper, notice: KeyLossNotice?,
        warn: @Sendable (String) -> Void
    ) async throws(KeptError) -> KeptData {
        var launches: [LaunchReport] = []
        do {
            launches.append(try await engines.launch())
            launches.append(try await chats.launch())
        } catch {
            // The store failed (a full disk, say): what is kept stays as it is, and the
            // commands run on; the next launch tries again.
            warn("kept data: \(error)")
        }
        for problem in launches.flatMap(\.problems) { warn("kept data: \(problem); it is left as it is") }
        return KeptData(status: status, engines: engines, chats: chats, launches: launches, notice: notice)
    }
}
