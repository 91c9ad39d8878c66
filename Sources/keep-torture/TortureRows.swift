import KeepConformance
import KeepPorts
import KeepSQLite
import KeepSealed

/// The torture tool's kept-data owner: one table of sealed rows, the row's writer and
/// sequence number in clear beside the sealed payload.
public enum TortureRows {
    public static let owner: KeptOwner = "torture"

    public static let schema = KeptSchema(
        owner: owner,
        migrations: [
            .init(
                "create rows",
                sql: """
                    CREATE TABLE torture_rows (
                        id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, seq INTEGER NOT NULL, sealed BLOB NOT NULL);
                    """)
        ])

    /// Every row is sealed for this binding.
    public static let binding = SealBinding(owner: owner, kind: "row", shapeVersion: 1, subject: nil)

    /// The throwaway 32-byte data key for `seed`.
    public static func dataKey(seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
