import KeepPorts

/// An owner's tables, as the ordered list of migrations that make them.
///
/// The list only ever grows at its end: migration `n` (counting from 1) is version `n`,
/// recorded per owner once it has run, so each runs exactly once on every database.
/// Every table, index, trigger and view a migration names must carry the owner's
/// prefix (``/KeepPorts/KeptOwner/tablePrefix``); ``SQLiteDatabase/migrate(_:)`` refuses one that
/// reaches anything else.
public struct KeptSchema: Sendable {
    /// One step of an owner's schema: a name for people and the SQL that takes it.
    public struct Migration: Sendable {
        /// What the step does, in words: `"create readings"`.
        public let name: String
        /// One or more statements (DDL, or DML over the owner's own tables), run in order.
        public let sql: String

        /// The step called `name` (for people, and recorded so a renamed step is noticed),
        /// running `sql`.
        public init(_ name: String, sql: String) {
            self.name = name
            self.sql = sql
        }
    }

    /// The owner whose tables these are; every name the SQL touches carries its prefix.
    public let owner: KeptOwner
    /// The steps in order: step `n` (from 1) is version `n`. Add new steps at the end only.
    public let migrations: [Migration]

    /// The schema of `owner`, made by `migrations` in order.
    public init(owner: KeptOwner, migrations: [Migration]) {
        self.owner = owner
        self.migrations = migrations
    }
}
