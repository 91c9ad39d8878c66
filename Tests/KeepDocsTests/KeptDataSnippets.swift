import KeepPorts
import KeepSQLite
import KeepSealed

/// The code of the kept-data article, compiled, and run by the tests on a temporary
/// directory: the vault on a key store that keeps nothing, the owner's store on a sealer
/// made from a fresh key.
enum KeptDataSnippets {
    /// The sealer for kept data under `root`, or `nil` when nothing may be kept (the
    /// reason is then printed); a one-time key-loss notice is shown, then acknowledged.
    static func openTheVault(_ keyStore: any KeyStorePort, root: String) async throws -> (any SealingPort)? {
        let vault = DataKeyVault(keys: keyStore, sealing: AESGCMSealing(), databasePath: root + "/kept.sqlite")
        let state = try await vault.open()
        guard case .kept(let sealer, let notice) = state else {
            if case .notKept(let reason) = state { print("nothing is kept: \(reason)") }
            return nil
        }
        if let notice {
            print(notice.description)  // the user is told once
            try await vault.acknowledgeNotice()
        }
        return sealer
    }

    /// Keeps the model list `json` read from the server at `baseURL` as the `engines`
    /// owner's reading, sealed, then reads it back and opens it.
    static func keepAReading(
        _ sealer: any SealingPort, root: String, baseURL: String, json: String
    ) async throws
        -> [String]
    {
        let database = try SQLiteDatabase(path: root + "/kept.sqlite")
        try await database.migrate(
            KeptSchema(
                owner: "engines",
                migrations: [
                    .init(
                        "create readings",
                        sql: "CREATE TABLE engines_readings (kind TEXT, subject BLOB, version INTEGER, sealed BLOB)")
                ]))
        let subject = try sealer.subjectHash(baseURL)
        let binding = SealBinding(owner: "engines", kind: "models", shapeVersion: 1, subject: subject)
        let sealed = try sealer.seal(Array(json.utf8), for: binding)
        // Only the sealed bytes, the subject's keyed hash and bookkeeping reach the table.
        try await database.write { transaction throws(SQLiteError) in
            try transaction.execute(
                "INSERT INTO engines_readings VALUES (?, ?, ?, ?)",
                [.text("models"), SQLiteValue(subject), .integer(1), SQLiteValue(sealed)])
        }
        let rows = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT sealed FROM engines_readings WHERE subject = ?", [SQLiteValue(subject)])
        }
        let opened = try rows.map { row in
            String(decoding: try sealer.open(try SealedPayload(bytes: try row.blob(0)), for: binding), as: UTF8.self)
        }
        return opened
    }
}
