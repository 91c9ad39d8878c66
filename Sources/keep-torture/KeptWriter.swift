import KeepConformance
import KeepSQLite
import KeepSealed

/// Inserts, updates and deletes sealed rows of 16 bytes to 64 KiB in the kept-data
/// database, one transaction at a time, forever.
///
/// Prints `begin KIND ID SEQUENCE SIZE TIME` before each transaction and
/// `ack KIND ID SEQUENCE TIME` once it committed.
enum KeptWriter {
    static func run(_ run: TortureRun) async -> Never {
        let database: SQLiteDatabase
        let sealer: AESGCMSealer
        var ids: [Int64]
        do {
            database = try SQLiteDatabase(path: run.path)
            _ = try await database.migrate(TortureRows.schema)
            sealer = try AESGCMSealer(dataKey: TortureRows.dataKey(seed: run.seed))
            ids = try await database.read { transaction throws(SQLiteError) in
                try transaction.query("SELECT id FROM torture_rows").map { row throws(SQLiteError) in try row.integer(0)
                }
            }
        } catch {
            TortureRun.fail(error)
        }
        var generator = run.generator()
        var sequence = run.firstSequence
        TortureRun.emit("ready")
        while true {
            sequence += 1
            let size = TortureRun.randomSize(upTo: 16, &generator)
            let payload = Array(MarkedValue.make(writer: run.writer, round: sequence, size: size).utf8)
            // Inserts outweigh deletes until there are 32 rows, then deletes outweigh inserts:
            // the table stays small enough to check whole after every kill.
            let choice = ids.isEmpty ? 0 : Int.random(in: 0..<10, using: &generator)
            let kind = choice < (ids.count < 32 ? 5 : 2) ? "insert" : choice < 6 ? "update" : "delete"
            let id = kind == "insert" ? (ids.max() ?? 0) + 1 : ids[Int.random(in: 0..<ids.count, using: &generator)]
            do {
                let sealed = try sealer.seal(payload, for: TortureRows.binding)
                let row: [SQLiteValue] = [
                    .integer(Int64(run.writer)), .integer(Int64(sequence)), SQLiteValue(sealed), .integer(id),
                ]
                TortureRun.emit("begin \(kind) \(id) \(sequence) \(size) \(TortureRun.now())")
                try await database.write { transaction throws(SQLiteError) in
                    switch kind {
                    case "insert":
                        _ = try transaction.execute(
                            "INSERT INTO torture_rows (writer, seq, sealed, id) VALUES (?, ?, ?, ?)", row)
                    case "update":
                        _ = try transaction.execute(
                            "UPDATE torture_rows SET writer = ?, seq = ?, sealed = ? WHERE id = ?", row)
                    default:
                        _ = try transaction.execute("DELETE FROM torture_rows WHERE id = ?", [.integer(id)])
                    }
                }
            } catch {
                TortureRun.fail(error)
            }
            TortureRun.emit("ack \(kind) \(id) \(sequence) \(TortureRun.now())")
            if kind == "insert" { ids.append(id) }
            if kind == "delete" { ids.removeAll { $0 == id } }
        }
    }
}
