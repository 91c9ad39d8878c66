import KeepFileStore
import KeepPorts
import KeepSQLite

/// The keeper of the data key: 32 random bytes made on first use and held in the key
/// store (the platform's secure storage), never in a file; it hands out the sealer made
/// from it.
///
/// ``open()`` promises, per launch:
///
/// - A key store that is not secure storage (`SecretProtection.processMemory`) gets no
///   key: the answer is ``VaultState/notKept(_:)`` with ``NotKeptReason/noSecureStore(_:)``,
///   and the database is not touched.
/// - A key store that cannot be asked (locked, not running) is
///   ``NotKeptReason/keyStoreUnavailable(_:)``, with kept data left exactly as it was.
/// - First use makes a key and stores it; later launches load the same key.
/// - A key that cannot be read any more — gone from the store while rows were sealed
///   under it, not 32 bytes, or not the key the rows were sealed under (the database
///   records a key check, derived from the key, never the key) — leads to every owner's
///   rows being deleted, a new key being made and stored, and a ``KeyLossNotice`` that
///   is answered at every launch until ``acknowledgeNotice()``.
///
/// The keyring is asked outside any database transaction: the decision holds an
/// exclusive lock of its own (``lockPath``, `flock`) from the first read of the key to the
/// last write of the ledger, so processes launching together take turns and agree on one
/// key, while each database transaction is one short, synchronous step. A key store that
/// cannot be asked leaves the database untouched (it is not even opened). A new key is
/// stored before the rows follow it: if it cannot be stored, nothing changed; if the
/// database then fails, the next launch finds the stored key and clears the same rows.
public struct DataKeyVault: Sendable {
    /// The name of the data key's item in the key store.
    public static let keyName = "kept-data-key"

    /// The platform's secure storage the data key is held in; if it does not persist,
    /// nothing is kept.
    public let keys: any KeyStorePort
    /// The mechanism that makes data keys and the sealer each key makes.
    public let sealing: any DataKeySealing
    /// The kept-data database (`<data root>/kept.sqlite`).
    public let databasePath: String
    /// The lock file the decision holds (`<database>.lock`): it holds no data.
    public var lockPath: String { databasePath + ".lock" }

    /// A vault for the database at `databasePath`, its key in `keys`. Nothing is read or
    /// made until ``open()``.
    public init(keys: any KeyStorePort, sealing: any DataKeySealing, databasePath: String) {
        self.keys = keys
        self.sealing = sealing
        self.databasePath = databasePath
    }

    /// Whether kept data works this launch, and the sealer when it does.
    ///
    /// Throws ``VaultError`` when the database cannot be opened or written, or libcrypto
    /// fails; never for a key store that cannot be reached.
    public func open() async throws(VaultError) -> VaultState {
        guard keys.protection.persists else { return .notKept(.noSecureStore(keys.protection)) }
        let name: KeyName
        do {
            name = try KeyName(Self.keyName)
        } catch {
            return .notKept(.keyStoreUnavailable(error))
        }
        let lock: FileLock.Held
        do { lock = try await FileLock.acquire(lockPath) } catch { throw .lock(error) }
        defer { lock.release() }

        var key: [UInt8]
        do {
            key = try await keys.load(name) ?? []
        } catch {
            return .notKept(.keyStoreUnavailable(error))
        }
        // Best effort: wipe our copy of the key once the sealer has derived its own keys.
        defer { key.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let loss: KeyLossNotice.Reason? =
            switch key.count {
            case sealing.keyCount: nil
            case 0: .keyMissing
            default: .keyUnreadable
            }
        if loss != nil {
            do { key = try sealing.makeKey() } catch { throw .sealing(error) }
        }
        let made: (sealer: any SealingPort, keyCheck: [UInt8])
        do { made = try sealing.sealer(for: key) } catch { throw .sealing(error) }
        if loss != nil {
            do { try await keys.store(name, key) } catch { return .notKept(.keyStoreUnavailable(error)) }
        }
        let notice = try await follow(made.keyCheck, loss: loss)
        return .kept(made.sealer, notice: notice)
    }

    /// Records that the ``KeyLossNotice`` was shown, so it is not answered again.
    public func acknowledgeNotice() async throws(VaultError) {
        let database = try Self.connect(databasePath)
        do {
            try await database.write { transaction throws(SQLiteError) in
                try VaultLedger.prepare(transaction)
                try VaultLedger.clearNotice(transaction)
            }
        } catch {
            throw .database(error)
        }
    }

    // MARK: - Private

    /// Makes the ledger agree with the key whose check is `keyCheck`, in one transaction:
    /// rows sealed under another key can never be opened again, so they go, and a notice
    /// is owed when there were any. Answers the notice still owed.
    private func follow(_ keyCheck: [UInt8], loss: KeyLossNotice.Reason?) async throws(VaultError) -> KeyLossNotice? {
        let database = try Self.connect(databasePath)
        do {
            return try await database.write { transaction throws(SQLiteError) in
                try VaultLedger.prepare(transaction)
                let record = try VaultLedger.record(transaction)
                var notice = record?.notice
                guard record?.keyCheck != keyCheck else { return notice }
                let cleared = try VaultLedger.clearOwnerRows(transaction)
                if cleared > 0 {
                    notice = KeyLossNotice(
                        reason: loss ?? .keyChanged, rowsCleared: cleared + (notice?.rowsCleared ?? 0))
                }
                try VaultLedger.save(VaultLedger.Record(keyCheck: keyCheck, notice: notice), transaction)
                return notice
            }
        } catch {
            throw .database(error)
        }
    }

    private static func connect(_ path: String) throws(VaultError) -> SQLiteDatabase {
        do { return try SQLiteDatabase(path: path) } catch { throw .database(error) }
    }
}
