import KeepPorts

/// The keeper of the data key: 32 random bytes made on first use and held in the key
/// store (the platform's secure storage), never in a file; it hands out the sealer made
/// from it.
///
/// ``open()`` promises, per launch:
///
/// - A key store that is not secure storage (``SecretProtection/processMemory``) gets no
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
/// The whole decision runs in one `BEGIN IMMEDIATE` transaction on a connection of its
/// own, spanning the key-store calls: processes launching together take turns, agree on
/// one key, and a failure part-way (a key that cannot be stored) changes nothing.
public struct DataKeyVault: Sendable {
    /// The name of the data key's item in the key store.
    public static let keyName = "kept-data-key"

    public let keys: any KeyStorePort
    /// The kept-data database (`<data root>/kept.sqlite`).
    public let databasePath: String

    public init(keys: any KeyStorePort, databasePath: String) {
        self.keys = keys
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
        let database = try Self.connect(databasePath)
        do {
            try await database.begin()
        } catch {
            throw .database(error)
        }
        do throws(VaultError) {
            let state = try await decide(name, database)
            if case .kept = state {
                do { try await database.commit() } catch { throw .database(error) }
            } else {
                await database.rollback()
            }
            return state
        } catch {
            await database.rollback()
            throw error
        }
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

    /// The decision, inside the transaction `open` holds on `database`.
    private func decide(_ name: KeyName, _ database: SQLiteDatabase) async throws(VaultError) -> VaultState {
        let record: VaultLedger.Record?
        do {
            record = try await database.within { transaction throws(SQLiteError) in
                try VaultLedger.prepare(transaction)
                return try VaultLedger.record(transaction)
            }
        } catch {
            throw .database(error)
        }
        var key: [UInt8]
        do {
            key = try await keys.load(name) ?? []
        } catch {
            return .notKept(.keyStoreUnavailable(error))
        }
        // Best effort: wipe our copy of the key once the sealer has derived its own keys.
        defer { AESGCMSealer.wipe(&key) }

        let loss: KeyLossNotice.Reason?
        switch key.count {
        case LibCrypto.keyCount: loss = nil
        case 0: loss = .keyMissing
        default: loss = .keyUnreadable
        }
        if loss != nil {
            do { key = try AESGCMSealer.makeDataKey() } catch { throw .sealing(error) }
        }
        let sealer: AESGCMSealer
        do { sealer = try AESGCMSealer(dataKey: key) } catch { throw .sealing(error) }

        var notice = record?.notice
        if record?.keyCheck != sealer.keyCheck {
            // The rows, if any, were sealed under a key that is not this one: none of
            // them can be opened again, so they go, and the user is told once.
            let keyCheck = sealer.keyCheck
            let cleared: Int
            do {
                cleared = try await database.within { transaction throws(SQLiteError) in
                    try VaultLedger.clearOwnerRows(transaction)
                }
                if cleared > 0 {
                    notice = KeyLossNotice(
                        reason: loss ?? .keyChanged, rowsCleared: cleared + (notice?.rowsCleared ?? 0))
                }
                let updated = VaultLedger.Record(keyCheck: keyCheck, notice: notice)
                try await database.within { transaction throws(SQLiteError) in
                    try VaultLedger.save(updated, transaction)
                }
            } catch {
                throw .database(error)
            }
        }
        if loss != nil {
            // Stored last: if it cannot be, the transaction is rolled back and nothing
            // above happened; if the commit fails after it, the next launch finds a key
            // that does not match the record and clears the same rows again.
            do { try await keys.store(name, key) } catch { return .notKept(.keyStoreUnavailable(error)) }
        }
        return .kept(sealer, notice: notice)
    }

    private static func connect(_ path: String) throws(VaultError) -> SQLiteDatabase {
        do { return try SQLiteDatabase(path: path) } catch { throw .database(error) }
    }
}
