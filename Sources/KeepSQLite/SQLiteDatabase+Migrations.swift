internal import CSQLite
import KeepPorts

// MARK: - Per-owner migrations

extension SQLiteDatabase {
    /// Brings `schema`'s owner up to date: runs, in order, each of its migrations not yet
    /// recorded, and answers how many ran.
    ///
    /// Everything happens in one write transaction: the migrations and their records in
    /// the `keep_migrations` table (keyed by owner and version) commit together or not
    /// at all, and a second process migrating at the same moment waits, then finds
    /// nothing left to do. Running it again is a no-op.
    ///
    /// Refused with a typed error, the database unchanged: an owner whose name cannot be
    /// a prefix (``SQLiteError/Code/refused``); a migration that names, creates, alters,
    /// drops, reads or writes anything outside the owner's prefix, or that manages
    /// transactions, pragmas or attachments itself (``SQLiteError/Code/refused``); a
    /// database already migrated past this list by a newer build
    /// (``SQLiteError/Code/newerSchema``); a database whose recorded migrations carry other
    /// names than the code gives those versions, or a list that names two steps alike
    /// (``SQLiteError/Code/divergedSchema``): a migration renamed, reordered or removed
    /// after it ran would otherwise be skipped without a word.
    @discardableResult
    public func migrate(_ schema: KeptSchema) throws(SQLiteError) -> Int {
        let owner = schema.owner
        let operation = "migrate \(owner.name)"
        if let problem = owner.problem {
            throw .refused(.refused, SQLITE_AUTH, operation: operation, path: path, problem)
        }
        return try write { transaction throws(SQLiteError) in
            try transaction.execute(
                """
                CREATE TABLE IF NOT EXISTS keep_migrations (
                    owner TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,
                    applied_at INTEGER NOT NULL, PRIMARY KEY (owner, version)) STRICT
                """)
            let recorded = try transaction.query(
                "SELECT coalesce(max(version), 0) FROM keep_migrations WHERE owner = ?", [.text(owner.name)])
            let current = Int(try recorded.first?.integer(0) ?? 0)
            guard current <= schema.migrations.count else {
                throw .refused(
                    .newerSchema, SQLITE_ERROR, operation: operation, path: path,
                    "the database is at version \(current) of \(owner.name); this build knows \(schema.migrations.count)"
                )
            }
            try Self.checkRecorded(schema, in: transaction, operation: operation, path: path)
            for (offset, migration) in schema.migrations.enumerated().dropFirst(current) {
                let version = offset + 1
                let step = "\(operation) \(version) (\(migration.name))"
                let before = try Self.schemaObjects(transaction)
                let others = Set(before.filter { !$0.belongs(to: owner) }.map { $0.name.lowercased() })
                try Self.runWalled(migration.sql, owner: owner, others: others, on: transaction, operation: step)
                let changed = before.symmetricDifference(try Self.schemaObjects(transaction))
                if let stray = changed.first(where: { !$0.belongs(to: owner) }) {
                    throw .refused(
                        .refused, SQLITE_AUTH, operation: step, path: path,
                        "it leaves \(stray.type) \(stray.name) outside the prefix \(owner.tablePrefix)")
                }
                try transaction.execute(
                    "INSERT INTO keep_migrations (owner, version, name, applied_at) VALUES (?, ?, ?, unixepoch())",
                    [.text(owner.name), .integer(Int64(version)), .text(migration.name)])
            }
            return schema.migrations.count - current
        }
    }

    /// Refuses a schema whose names are not unique, or whose recorded steps (up to the
    /// version recorded) carry other names than the code gives them.
    private static func checkRecorded(
        _ schema: KeptSchema, in transaction: borrowing SQLiteTransaction, operation: String, path: String
    ) throws(SQLiteError) {
        let names = schema.migrations.map(\.name)
        if let twice = names.enumerated().first(where: { names[..<$0.offset].contains($0.element) }) {
            throw .refused(
                .divergedSchema, SQLITE_ERROR, operation: operation, path: path,
                "two of \(schema.owner.name)'s migrations are named \"\(twice.element)\"; each name must be its own")
        }
        let recorded = try transaction.query(
            "SELECT version, name FROM keep_migrations WHERE owner = ? ORDER BY version", [.text(schema.owner.name)])
        for row in recorded {
            let version = Int(try row.integer(0))
            let name = try row.text(1)
            let expected = names.indices.contains(version - 1) ? names[version - 1] : nil
            guard expected == name || expected == nil else {
                throw .refused(
                    .divergedSchema, SQLITE_ERROR, operation: operation, path: path,
                    "version \(version) of \(schema.owner.name) ran as \"\(name)\", but this build calls it "
                        + "\"\(expected ?? "")\": a migration was renamed, reordered or removed after it ran")
            }
        }
    }

    /// Every object in the main schema, for telling what a migration changed.
    private static func schemaObjects(
        _ transaction: borrowing SQLiteTransaction
    ) throws(SQLiteError) -> Set<SchemaObject> {
        var objects = Set<SchemaObject>()
        for row in try transaction.query("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema") {
            objects.insert(
                SchemaObject(type: try row.text(0), name: try row.text(1), table: try row.text(2), sql: try row.text(3))
            )
        }
        return objects
    }

    /// Runs each statement of `script` in turn with the owner's wall as SQLite's
    /// authorizer, so a statement that reaches outside the owner is refused when it is
    /// prepared, before it can run.
    private static func runWalled(
        _ script: String, owner: KeptOwner, others: Set<String>, on transaction: borrowing SQLiteTransaction,
        operation: String
    ) throws(SQLiteError) {
        let connection = transaction.connection
        let path = transaction.path
        let wall = MigrationWall(owner, others: others)
        let context = Unmanaged.passUnretained(wall).toOpaque()
        var result = sqlite3_set_authorizer(
            connection,
            { context, action, first, second, _, _ in
                guard let context else { return SQLITE_DENY }
                return Unmanaged<MigrationWall>.fromOpaque(context).takeUnretainedValue().decide(action, first, second)
            }, context)
        guard result == SQLITE_OK else { throw .last(connection, result, operation: "set authorizer", path: path) }
        // The wall is for the migration only: the bookkeeping that follows is ours.
        // Removing an authorizer from an open connection cannot fail.
        defer { sqlite3_set_authorizer(connection, nil, nil) }

        try withExtendedLifetime(wall) { () throws(SQLiteError) in
            let text = Array(script.utf8CString)
            try text.withBytes { bytes throws(SQLiteError) in
                guard var cursor = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
                while cursor.pointee != 0 {
                    var prepared: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    result = sqlite3_prepare_v2(connection, cursor, -1, &prepared, &tail)
                    // finalize only repeats the step's error, reported below; it always frees.
                    defer { sqlite3_finalize(prepared) }
                    let statementText = tail.map { end in
                        String(decoding: UnsafeRawBufferPointer(start: cursor, count: end - cursor), as: UTF8.self)
                            .trimmingPrefix(while: \.isWhitespace).description
                    }
                    if let denial = wall.denial {
                        throw .refused(
                            .refused, SQLITE_AUTH, operation: operation, path: path, sql: statementText, denial)
                    }
                    guard result == SQLITE_OK else {
                        throw .last(connection, result, operation: operation, path: path, sql: statementText)
                    }
                    // Blank text or a lone comment prepares to no statement: nothing to run.
                    if let prepared {
                        var step = sqlite3_step(prepared)
                        while step == SQLITE_ROW { step = sqlite3_step(prepared) }
                        guard step == SQLITE_DONE else {
                            throw .last(connection, step, operation: operation, path: path, sql: statementText)
                        }
                    }
                    guard let tail, tail != cursor else { break }
                    cursor = tail
                }
            }
        }
    }
}

/// One row of `sqlite_schema`.
private struct SchemaObject: Hashable {
    let type, name, table, sql: String

    /// Whether a migration of `owner` may have made or changed this object: its table
    /// carries the prefix, and so does its own name unless SQLite named it (the index
    /// behind a UNIQUE constraint, the table behind AUTOINCREMENT).
    func belongs(to owner: KeptOwner) -> Bool {
        if name.hasPrefix("sqlite_"), table.hasPrefix("sqlite_") { return true }
        return MigrationWall.carries(table, owner)
            && (MigrationWall.carries(name, owner) || name.hasPrefix("sqlite_autoindex_"))
    }
}

/// SQLite's authorizer during one owner's migration: every table, index, trigger and
/// view it creates, alters or drops must carry the owner's prefix; it reads and writes
/// no object that exists without the prefix (another owner's, the bookkeeping); and
/// transactions, savepoints, pragmas and attachments are the runner's, never a
/// migration's.
///
/// It keeps the first refusal, in words, for the error the runner throws.
private final class MigrationWall {
    let owner: KeptOwner
    /// The lowercased names of the objects that exist and are not the owner's.
    let others: Set<String>
    private(set) var denial: String?

    init(_ owner: KeptOwner, others: Set<String>) {
        self.owner = owner
        self.others = others
    }

    /// SQLITE_OK or SQLITE_DENY for one action; `first` and `second` mean what SQLite's
    /// authorizer documentation says they mean for that action.
    func decide(_ action: Int32, _ first: UnsafePointer<CChar>?, _ second: UnsafePointer<CChar>?) -> Int32 {
        let first = first.map { String(cString: $0) }
        let second = second.map { String(cString: $0) }
        switch action {
        case SQLITE_SELECT, SQLITE_FUNCTION, SQLITE_RECURSIVE:
            return SQLITE_OK
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_READ:
            // Data is named by table, or by a common table expression's own name: what
            // is refused is an object that exists and is not the owner's.
            guard let first, others.contains(first.lowercased()) else { return SQLITE_OK }
            deny("it reads or writes \"\(first)\", which is not \(owner.name)'s")
            return SQLITE_DENY
        case SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_TABLE, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE,
            SQLITE_CREATE_VIEW, SQLITE_CREATE_TEMP_VIEW, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW,
            SQLITE_ANALYZE, SQLITE_REINDEX, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
            return require(first, action)
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TEMP_INDEX, SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX,
            SQLITE_CREATE_TRIGGER, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_DROP_TRIGGER, SQLITE_DROP_TEMP_TRIGGER:
            // The object's own name and the table it is on.
            return require(first, action) == SQLITE_OK ? require(second, action) : SQLITE_DENY
        case SQLITE_ALTER_TABLE:
            return require(second, action)
        default:
            deny("it runs a statement that is the runner's, not a migration's (action \(action))")
            return SQLITE_DENY
        }
    }

    /// Whether `name` carries `owner`'s prefix; SQL names are case-insensitive.
    static func carries(_ name: String, _ owner: KeptOwner) -> Bool {
        name.lowercased().hasPrefix(owner.tablePrefix)
    }

    private func require(_ name: String?, _ action: Int32) -> Int32 {
        guard let name else {
            deny("it runs an action (\(action)) that names nothing")
            return SQLITE_DENY
        }
        // SQLite's own objects: the schema table a DDL statement writes, the sequence
        // table AUTOINCREMENT makes, the index a UNIQUE constraint makes. SQLite reserves
        // the prefix and refuses to let a statement create or drop such an object.
        if name.lowercased().hasPrefix("sqlite_") { return SQLITE_OK }
        guard Self.carries(name, owner) else {
            deny("it names \"\(name)\", which does not carry the prefix \(owner.tablePrefix)")
            return SQLITE_DENY
        }
        return SQLITE_OK
    }

    private func deny(_ reason: String) {
        if denial == nil { denial = reason }
    }
}
