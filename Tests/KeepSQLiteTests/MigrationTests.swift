import KeepConformance
import KeepPorts
import KeepTestSupport
import Testing

@testable import KeepSQLite

@Suite("Per-owner migrations")
struct MigrationTests {
    static func recorded(_ database: SQLiteDatabase) async throws -> [SQLiteRow] {
        try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT owner, version, name FROM keep_migrations ORDER BY owner, version")
        }
    }

    static func tables(_ database: SQLiteDatabase) async throws -> [String] {
        try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
                .map { row throws(SQLiteError) in try row.text(0) }
        }
    }

    @Test("migrations run once, in order, and are recorded per owner")
    func migrationsRunOnceInOrder() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        #expect(try await database.migrate(DemoOwner.schema) == 2)
        #expect(try await database.migrate(DemoOwner.schema) == 0)
        #expect(
            try await Self.recorded(database) == [
                SQLiteRow(["demo", 1, "create rows"]), SQLiteRow(["demo", 2, "index rows by subject"]),
            ])
        // A third migration added later runs alone, after the first two; order matters,
        // since it needs the table the first made.
        let grown = KeptSchema(
            owner: DemoOwner.owner,
            migrations: DemoOwner.schema.migrations + [
                .init("add a time", sql: "ALTER TABLE demo_rows ADD COLUMN at INTEGER")
            ])
        #expect(try await database.migrate(grown) == 1)
        #expect(try await Self.recorded(database).count == 3)
        // Another connection, as at the next launch, finds nothing to do.
        let relaunched = try SQLiteDatabase(path: database.path)
        #expect(try await relaunched.migrate(grown) == 0)
    }

    @Test("two owners' migrations are recorded independently")
    func ownersAreIndependent() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let other = KeptSchema(owner: "other", migrations: [.init("create", sql: "CREATE TABLE other_rows (v)")])
        try await database.migrate(DemoOwner.schema)
        #expect(try await database.migrate(other) == 1)
        #expect(try await Self.tables(database) == ["demo_rows", "keep_migrations", "other_rows"])
    }

    @Test("launches migrating at the same moment run each migration once")
    func concurrentLaunchesMigrateOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("kept.sqlite")
        let connections = try (0..<4).map { _ in try SQLiteDatabase(path: path) }
        let applied = try await withThrowingTaskGroup(of: Int.self) { group in
            for connection in connections {
                group.addTask { try await connection.migrate(DemoOwner.schema) }
            }
            return try await group.reduce(0, +)
        }
        #expect(applied == 2)
        #expect(try await Self.recorded(connections[0]).count == 2)
    }

    struct Stray: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let sql: String
    }

    static let strays: [Stray] = [
        Stray(testDescription: "a table without the prefix", sql: "CREATE TABLE readings (v)"),
        Stray(testDescription: "a table with another owner's prefix", sql: "CREATE TABLE other_rows2 (v)"),
        Stray(testDescription: "a bookkeeping table", sql: "CREATE TABLE keep_vault2 (v)"),
        Stray(testDescription: "a prefix that is only a prefix of the name", sql: "CREATE TABLE demox (v)"),
        Stray(testDescription: "an index on another owner's table", sql: "CREATE INDEX demo_i ON other_rows (v)"),
        Stray(testDescription: "an index named outside the prefix", sql: "CREATE INDEX rows_i ON demo_rows (kind)"),
        Stray(testDescription: "a view outside the prefix", sql: "CREATE VIEW everything AS SELECT 1"),
        Stray(
            testDescription: "a trigger on another owner's table",
            sql: "CREATE TRIGGER demo_t AFTER INSERT ON other_rows BEGIN SELECT 1; END"),
        Stray(testDescription: "a rename out of the prefix", sql: "ALTER TABLE demo_rows RENAME TO rows"),
        Stray(testDescription: "altering another owner's table", sql: "ALTER TABLE other_rows ADD COLUMN w"),
        Stray(testDescription: "dropping another owner's table", sql: "DROP TABLE other_rows"),
        Stray(testDescription: "writing another owner's rows", sql: "INSERT INTO other_rows VALUES (1)"),
        Stray(
            testDescription: "reading another owner's rows", sql: "CREATE TABLE demo_copy AS SELECT v FROM other_rows"),
        Stray(testDescription: "rewriting the migration records", sql: "DELETE FROM keep_migrations"),
        Stray(testDescription: "a transaction of its own", sql: "COMMIT; CREATE TABLE demo_more (v)"),
        Stray(testDescription: "a pragma", sql: "PRAGMA foreign_keys = OFF"),
        Stray(testDescription: "attaching a database", sql: "ATTACH DATABASE ':memory:' AS demo_elsewhere"),
        Stray(
            testDescription: "a later statement of the same migration",
            sql: "CREATE TABLE demo_ok (v); CREATE TABLE nope (v)"),
    ]

    @Test(
        "a migration that reaches outside its owner's prefix is refused, and leaves nothing behind", arguments: strays)
    func strayMigrationsAreRefused(_ stray: Stray) async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        try await database.migrate(
            KeptSchema(owner: "other", migrations: [.init("create", sql: "CREATE TABLE other_rows (v)")]))
        try await database.write { transaction throws(SQLiteError) in
            try transaction.execute("INSERT INTO other_rows VALUES (41)")
        }
        let before = try await Self.tables(database)
        let schema = KeptSchema(
            owner: DemoOwner.owner, migrations: DemoOwner.schema.migrations + [.init("stray", sql: stray.sql)])
        do {
            try await database.migrate(schema)
            Issue.record("\(stray.testDescription) was allowed")
        } catch {
            #expect(error.code == .refused, "\(error)")
            #expect(error.description.contains("migrate demo 3 (stray)"))
        }
        // All or nothing: not even the owner's two good migrations were kept.
        #expect(try await Self.tables(database) == before)
        #expect(try await Self.recorded(database) == [SQLiteRow(["other", 1, "create"])])
        let kept = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT v FROM other_rows")
        }
        #expect(kept == [SQLiteRow([41])])
    }

    @Test("an owner's own tables, indexes, triggers, views, constraints and data migrations are allowed")
    func ownMigrationsAreAllowed() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let schema = KeptSchema(
            owner: DemoOwner.owner,
            migrations: [
                .init(
                    "everything an owner may do",
                    sql: """
                        CREATE TABLE demo_a (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT UNIQUE);
                        CREATE TABLE Demo_B (a INTEGER REFERENCES demo_a (id) ON DELETE CASCADE);
                        CREATE INDEX demo_b_by_a ON demo_b (a);
                        CREATE VIEW demo_v AS SELECT v FROM demo_a;
                        CREATE TRIGGER demo_tr AFTER DELETE ON demo_a BEGIN DELETE FROM demo_b WHERE a = old.id; END;
                        INSERT INTO demo_a (v) VALUES ('seed');
                        -- a comment between statements
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3)
                            INSERT INTO demo_b (a) SELECT 1 FROM n;
                        """),
                .init(
                    "reshape",
                    sql: "ALTER TABLE demo_a ADD COLUMN w; UPDATE demo_a SET w = length(v); DROP VIEW demo_v;"),
            ])
        #expect(try await database.migrate(schema) == 2)
        let rows = try await database.read { transaction throws(SQLiteError) in
            try transaction.query("SELECT (SELECT w FROM demo_a), (SELECT count(*) FROM demo_b)")
        }
        #expect(rows == [SQLiteRow([4, 3])])
    }

    @Test(
        "an owner whose name cannot be a table prefix is refused",
        arguments: ["", "Engines", "keep", "sqlite", "a_b", "1abc", "with space", String(repeating: "a", count: 33)])
    func invalidOwnerIsRefused(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let schema = KeptSchema(
            owner: KeptOwner(name), migrations: [.init("create", sql: "CREATE TABLE \(name)_x (v)")])
        await #expect {
            try await database.migrate(schema)
        } throws: { ($0 as? SQLiteError)?.code == .refused }
        // The pair: the longest valid name works.
        let longest = String(repeating: "a", count: 32)
        #expect(
            try await database.migrate(
                KeptSchema(
                    owner: KeptOwner(longest), migrations: [.init("create", sql: "CREATE TABLE \(longest)_x (v)")]))
                == 1)
    }

    @Test("a failing migration rolls back the whole run and the next launch retries it")
    func failingMigrationRollsBack() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let broken = KeptSchema(
            owner: DemoOwner.owner,
            migrations: DemoOwner.schema.migrations + [
                .init("broken", sql: "INSERT INTO demo_rows (kind) VALUES ('x')")
            ])
        await #expect {
            try await database.migrate(broken)
        } throws: { ($0 as? SQLiteError)?.code == .constraint }
        // Even the bookkeeping table, made in the same transaction, is gone.
        #expect(try await Self.tables(database) == [])
        #expect(try await database.migrate(DemoOwner.schema) == 2)
    }

    @Test("a database migrated by a newer build is refused, not rewritten")
    func newerDatabaseIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        try await database.migrate(DemoOwner.schema)
        let older = KeptSchema(owner: DemoOwner.owner, migrations: Array(DemoOwner.schema.migrations.prefix(1)))
        await #expect {
            try await database.migrate(older)
        } throws: { ($0 as? SQLiteError)?.code == .newerSchema }
        #expect(try await Self.recorded(database).count == 2)
    }

    /// The demo owner's schema as a later build might ship it, with its steps changed.
    static func changed(_ change: ([KeptSchema.Migration]) -> [KeptSchema.Migration]) -> KeptSchema {
        KeptSchema(owner: DemoOwner.owner, migrations: change(DemoOwner.schema.migrations))
    }

    @Test(
        "a migration renamed, reordered or removed after it ran refuses to open, naming the version",
        arguments: [
            ("renamed", changed { [.init("make rows", sql: $0[0].sql), $0[1]] }),
            ("reordered", changed { [$0[1], $0[0]] }),
            ("removed", changed { [$0[1], .init("add a time", sql: "ALTER TABLE demo_rows ADD COLUMN at INTEGER")] }),
        ])
    func divergedMigrationsAreRefused(_ change: String, _ schema: KeptSchema) async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        try await database.migrate(DemoOwner.schema)
        let before = try await Self.tables(database)
        let error = await #expect(throws: SQLiteError.self) {
            try await database.migrate(schema)
        }
        #expect(error?.code == .divergedSchema, "\(change)")
        #expect(error?.description.contains("version 1 of demo") == true, "\(change): \(String(describing: error))")
        #expect(try await Self.tables(database) == before, "nothing changed")
        #expect(try await Self.recorded(database).count == 2)
        // The pair: the code's own list, unchanged, still opens.
        #expect(try await database.migrate(DemoOwner.schema) == 0)
    }

    @Test("two steps of one owner with the same name are refused before anything runs")
    func duplicateNamesAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.appending("kept.sqlite"))
        let twice = Self.changed { $0 + [.init($0[0].name, sql: "ALTER TABLE demo_rows ADD COLUMN at INTEGER")] }
        await #expect {
            try await database.migrate(twice)
        } throws: { ($0 as? SQLiteError)?.code == .divergedSchema }
        #expect(try await Self.tables(database) == [])
    }
}
