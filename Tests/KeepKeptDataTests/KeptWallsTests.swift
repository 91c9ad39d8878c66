import Foundation
import KeepConformance
import KeepSQLite
import KeepSealed
import KeepTestSupport
import Testing

@testable import KeepKeptData

@Suite("The walls of kept data, over the source tree")
struct KeptWallsTests {
    @Test("the wall holds over the source tree", arguments: KeptWall.all)
    func wallHolds(_ wall: SourceWall) throws {
        let tree = try SourceTree.sources()
        #expect(tree.count > 50, "the tree was found: \(SourceTree.root.path)")
        #expect(wall.violations(tree) == [])
    }

    @Test("the wall's scan sees a breach planted in the source tree", arguments: KeptWall.all)
    func wallSeesABreach(_ wall: SourceWall) throws {
        #expect(!wall.violations(try SourceTree.sources() + wall.breach).isEmpty)
    }

    @Test("the owners' schemas, migrated, make exactly the tables the sources create, each with its owner's prefix")
    func schemasMatchTheSources() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path + "/kept.sqlite")
        _ = try await EnginesSQLiteStore.open(database)
        _ = try await ChatsSQLiteStore.open(database)
        let migrated = try await database.read { transaction throws(SQLiteError) in
            try transaction.query(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'keep\\_%' ESCAPE '\\'")
        }
        let tables = Set(try migrated.map { try $0.text(0) })
        let inSources = Set(
            KeptWall.createdTables(try SourceTree.sources()).filter { $0.file.isStoreCode }.map(\.table))
        #expect(tables == inSources)
        #expect(tables == ["engines_readings", "engines_markers", "engines_preferences", "chats_preferences"])
    }

    @Test("comments are not code to the walls, and string literals are")
    func commentsAreStripped() {
        let file = SourceFile(
            path: "x.swift",
            text: """
                // import CSQLite
                /* SELECT 1 */ let a = "// SELECT kept" /* and \(1) */
                let b = "x \\(f("y")) // z" // gone
                let c = #"raw "quoted" // stays"#
                """)
        #expect(!file.code.contains("import CSQLite"))
        #expect(!file.code.contains("SELECT 1"))
        #expect(file.code.contains("\"// SELECT kept\""))
        #expect(file.code.contains(#""x \(f("y")) // z""#))
        #expect(!file.code.contains("gone"))
        #expect(file.code.contains(##"#"raw "quoted" // stays"#"##))
    }
}
