import Foundation
import KeepTestSupport
import Testing

@testable import KeepKeptData

/// The walls of kept data, as rules over the source tree (``KeepTestSupport/SourceWall``):
/// each a sentence, a scan that answers its violations, and a planted breach the scan must
/// see.
enum KeptWall {}

extension SourceFile {
    /// Whether the file belongs to a tool that is no part of the app (see ``KeptWall/Exception/tools``).
    var isTool: Bool { KeptWall.Exception.tools.contains { path.hasPrefix($0) } }
}

extension KeptWall {
    // MARK: - Where things may be

    /// Targets and folders a wall lets through, and why.
    enum Exception {
        /// The tools and the test support that are no part of the app, each on databases of
        /// its own: the benchmark measures raw SQLite and libcrypto as baselines and may
        /// construct adapters (DESIGN §2); the torture tool writes sealed rows until it is
        /// killed; the test support has a demo owner of its own for the wrapper's tests.
        static let tools = ["Sources/keep-bench/", "Sources/keep-torture/", "Sources/KeepTestSupport/"]
        /// The composition root binds ports to stores and opens the database.
        static let compositionRoot = "Sources/KeepApp/Composition/"
        /// KeepSQLite: the SQLite wrapper, the one adapter of the C library.
        static let sqliteWrapper = "KeepSQLite"
        /// SQL outside owners' stores: the wrapper's own statements (transactions, pragmas,
        /// the migrations ledger) and the vault's bookkeeping table.
        static let sqlOutsideStores = [
            "Sources/KeepSQLite/SQLiteDatabase.swift", "Sources/KeepSQLite/SQLiteDatabase+Migrations.swift",
            "Sources/KeepSealed/VaultLedger.swift",
        ]
        /// The chat index: a cache of the chat files in a database of its own
        /// (`chat-index.sqlite`), never the kept-data database, holding no sealed record;
        /// its tables are its own and no owner's.
        static let chatIndex = ["Sources/KeepChatIndex/ChatIndex.swift", "Sources/KeepChatIndex/ChatIndexSchema.swift"]
        /// The ports library's own store port: the secure store the data key is kept in,
        /// which is no owner's.
        static let portsOfTheLibrary = ["KeyStorePort"]
        /// The sealing port's implementation on libcrypto.
        static let sealingImplementation = [
            "Sources/KeepSealed/AESGCMSealer.swift", "Sources/KeepSealed/LibCrypto.swift",
        ]
    }

    static let all: [SourceWall] = [
        sqliteImportedOnlyByTheWrapper, sqliteDatabaseOnlyInStoresAndTheRoot, sqlOnlyInStores,
        libcryptoOnlyThroughTheSealer, storeOnlyThroughItsPort, storePortsAreTheOwners, storePortsSpeakSealedRecords,
        storesTakeNoCredential, tablesCarryTheirOwner,
        markersTablesSayWhatIsNew, subjectTablesForgetServers, everyShapeIsTested,
    ]

    static let sqliteImportedOnlyByTheWrapper = SourceWall(
        rule: "the SQLite module is imported only by the SQLite wrapper, KeepSQLite",
        violations: SourceWall.onlyIn(
            #"(?m)^\s*(?:@\w+\s+)*(?:(?:internal|public|private|fileprivate|package)\s+)?import\s+CSQLite\b"#,
            allowed: { $0.target == Exception.sqliteWrapper || $0.isTool },
            what: "imports CSQLite"),
        breach: [SourceFile(path: "Sources/KeepKeptData/Engines/Leak.swift", text: "internal import CSQLite\n")])

    static let sqliteDatabaseOnlyInStoresAndTheRoot = SourceWall(
        rule: "the SQLite database is used only by owners' stores and the composition root",
        violations: SourceWall.onlyIn(
            #"\bSQLite(?:Database|Transaction|Row|Value)\b"#,
            allowed: {
                [Exception.sqliteWrapper, "KeepSealed"].contains($0.target) || $0.isStoreCode
                    || $0.isUnder(Exception.compositionRoot) || $0.isTool || Exception.chatIndex.contains($0.path)
            }, what: "uses the SQLite database"),
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Engines/EnginesShortcut.swift", text: "let database: SQLiteDatabase\n")
        ])

    static let sqlOnlyInStores = SourceWall(
        rule: "SQL text appears only in owners' store classes, the SQLite wrapper and the vault's bookkeeping",
        violations: SourceWall.onlyIn(
            #"\b(?:SELECT\s|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)|DROP\s+(?:TABLE|INDEX|TRIGGER|VIEW)|ALTER\s+TABLE|PRAGMA\s|BEGIN\s+(?:IMMEDIATE|DEFERRED|EXCLUSIVE)|ATTACH\s)"#,
            allowed: {
                $0.isStoreCode || Exception.sqlOutsideStores.contains($0.path) || $0.isTool
                    || Exception.chatIndex.contains($0.path)
            }, what: "holds SQL text"),
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Engines/EnginesKeeper.swift",
                text: #"let query = "DELETE FROM engines_readings""# + "\n")
        ])

    static let libcryptoOnlyThroughTheSealer = SourceWall(
        rule: "libcrypto is reached only through the sealing port's implementation",
        violations: { files in
            SourceWall.onlyIn(
                #"(?m)^\s*(?:@\w+\s+)*(?:(?:internal|public|private|fileprivate|package)\s+)?import\s+CCrypto\b"#,
                allowed: { Exception.sealingImplementation.contains($0.path) || $0.isTool },
                what: "imports CCrypto")(files)
                + SourceWall.onlyIn(
                    #"\bLibCrypto\b"#, allowed: { $0.target == "KeepSealed" || $0.isTool },
                    what: "calls libcrypto's wrapper")(files)
                + SourceWall.onlyIn(
                    #"\bAESGCMSealer\b"#,
                    allowed: {
                        $0.target == "KeepSealed" || $0.isUnder(Exception.compositionRoot)
                            || $0.isTool
                    }, what: "names the sealer instead of the sealing port")(files)
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Chats/ChatsKeeper.swift",
                text: "let sealer = try AESGCMSealer(dataKey: key)\n"),
            SourceFile(path: "Sources/KeepCore/Hash.swift", text: "import CCrypto\n"),
        ])

    // MARK: - Who sees a store

    /// The store classes of the owners: every type in an owner's folder that conforms to a
    /// store port (`…StorePort`), with the file that declares it.
    static func storeClasses(_ files: [SourceFile]) -> [(name: String, file: SourceFile)] {
        files.filter { $0.owner != nil }.flatMap { file in
            file.matches(#"(?:actor|class|struct|enum)\s+(\w+)\s*:[^{]*\b\w+StorePort\b"#).map { ($0, file) }
        }
    }

    static let storeOnlyThroughItsPort = SourceWall(
        rule:
            "a store class is named only in its own folder and by the composition root: its keeper sees its port alone",
        violations: { files in
            let stores = storeClasses(files)
            var found = stores.isEmpty ? ["no store class found: the scan is not looking"] : []
            for (store, declaring) in stores {
                for file in files where !file.matches("\\b\(store)\\b").isEmpty {
                    let ownFolder =
                        file.path == declaring.path
                        || (file.isStoreCode && declaring.isStoreCode && file.owner == declaring.owner)
                    if ownFolder || file.isUnder(Exception.compositionRoot) || file.isTool { continue }
                    found.append("\(file.path) names the store class \(store)")
                }
            }
            return found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Engines/EnginesKeeper.swift",
                text: "let store = try await EnginesSQLiteStore.open(database)\n"),
            SourceFile(path: "Sources/KeepReports/ChatsPeek.swift", text: "let store = ChatsMemoryStore()\n"),
        ])

    static let storePortsAreTheOwners = SourceWall(
        rule: "a store port is declared by its owner, in the owner's folder: none in the ports library",
        violations: { files in
            var found: [String] = []
            var ports = 0
            for file in files {
                for port in file.matches(#"protocol\s+(\w+StorePort)\b"#) {
                    ports += 1
                    guard let owner = file.owner else {
                        if !Exception.portsOfTheLibrary.contains(port) {
                            found.append("\(file.path) declares the store port \(port) outside an owner's folder")
                        }
                        continue
                    }
                    if !port.lowercased().hasPrefix(owner) {
                        found.append("\(file.path) declares \(port) in the folder of \(owner)")
                    }
                }
            }
            return ports == 0 ? ["no store port found: the scan is not looking"] : found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepPorts/EnginesStorePort.swift",
                text:
                    "public protocol EnginesStorePort: Sendable {\n    func keepReading(_ reading: KeptRecord) async\n}\n"
            )
        ])

    // MARK: - What a store sees

    /// The types a store port and a store's methods may name: the sealed record and what
    /// is in it, the bookkeeping, and the error.
    static let sealedTypes: Set<String> = [
        "KeptRecord", "SealedPayload", "SubjectHash", "KeptInstant", "String", "Int", "Bool", "KeptError", "Sendable",
    ]

    /// The type names in the declarations of `file` matching `declaration`.
    private static func typesNamed(in declarations: [String]) -> Set<String> {
        var names = Set<String>()
        for declaration in declarations {
            let file = SourceFile(path: "", text: declaration)
            names.formUnion(file.matches(#"[:>\[(,]\s*\(?\s*([A-Z]\w*)"#))
            names.formUnion(file.matches(#"->\s*\[?([A-Z]\w*)"#))
        }
        return names
    }

    static let storePortsSpeakSealedRecords = SourceWall(
        rule: "a store port takes and returns only sealed payloads, subject hashes and bookkeeping",
        violations: { files in
            var found: [String] = []
            var ports = 0
            for file in files where file.owner != nil {
                for body in file.matches(#"(?s)protocol\s+\w+StorePort\s*:[^{]*\{(.*?)\n\}"#) {
                    ports += 1
                    let signatures = SourceFile(path: "", text: body).matches(#"func\s+[^\n]*"#)
                    for type in typesNamed(in: signatures).subtracting(sealedTypes).sorted() {
                        found.append("\(file.path) names \(type) in a store port")
                    }
                }
            }
            for file in files where file.path == "Sources/KeepKeptData/KeptRecord.swift" {
                let fields = file.matches(#"(?m)^\s*(?:public\s+)?let\s+\w+\s*:\s*([A-Za-z?\[\]]+)"#)
                for field in fields where !sealedTypes.contains(field.trimmingCharacters(in: ["?", "[", "]"])) {
                    found.append("KeptRecord holds a \(field)")
                }
            }
            return ports == 0 ? ["no store port found: the scan is not looking"] : found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Engines/EnginesLeakyStorePort.swift",
                text: "protocol EnginesLeakyStorePort: Sendable {\n    func keep(_ list: ModelList) async\n}\n")
        ])

    /// What a credential, a session or pairing material is named in this code base.
    static let credentials =
        #"\b(?:SecretRef|SecretSlot|SecretsPort|KeyStorePort|KeyName|SecretServiceSecrets|SecretServiceKeyStore|SettingsStore|apiKey|[Tt]oken|[Pp]assword|[Cc]redential|[Bb]earer|Authorization|[Ss]ession|[Pp]airing)\b"#

    static let storesTakeNoCredential = SourceWall(
        rule:
            "no store method takes a credential, session or pairing value, and a store imports only KeepSQLite, KeepSealed and KeepPorts",
        violations: { files in
            var found: [String] = []
            for file in files where file.isStoreCode || (file.owner != nil && file.path.hasSuffix("StorePort.swift")) {
                for name in Set(file.matches(credentials)).sorted() { found.append("\(file.path) names \(name)") }
                for module in file.matches(#"(?m)^\s*(?:\w+\s+)?import\s+(\w+)"#)
                where ![Exception.sqliteWrapper, "KeepSealed", "KeepPorts"].contains(module) {
                    found.append("\(file.path) imports \(module)")
                }
                let methods = file.matches(#"(?m)^\s*(?:static\s+)?func\s+[^\n]*"#).filter { !$0.contains("private") }
                let allowed = sealedTypes.union(["SQLiteDatabase"]).union(file.matches(#"struct\s+(\w+)"#))
                for type in typesNamed(in: methods).subtracting(allowed).sorted() {
                    found.append("\(file.path) has a method naming \(type)")
                }
            }
            return found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Engines/Store/EnginesKeyStore.swift",
                text:
                    "import KeepPorts\nstruct EnginesKeyStore {\n    func keep(_ ref: SecretRef, apiKey: String) {}\n}\n"
            )
        ])

    // MARK: - Tables

    /// The tables the sources create, with the file that creates each.
    static func createdTables(_ files: [SourceFile]) -> [(table: String, file: SourceFile)] {
        files.flatMap { file in
            file.matches(#"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"#).map { ($0, file) }
        }
    }

    static let tablesCarryTheirOwner = SourceWall(
        rule: "a table carries its owner's prefix, is created in its owner's store and is named in no other module",
        violations: { files in
            var found: [String] = []
            for (table, file) in createdTables(files) where !file.isTool && !Exception.chatIndex.contains(file.path) {
                if [Exception.sqliteWrapper, "KeepSealed"].contains(file.target) {
                    // Keep's own bookkeeping: the migrations ledger and the vault.
                    if !table.hasPrefix("keep_") { found.append("\(file.path) creates \(table) without keep_") }
                    continue
                }
                guard let owner = file.owner, file.isStoreCode else {
                    found.append("\(file.path) creates \(table) outside an owner's store")
                    continue
                }
                if !table.hasPrefix(owner + "_") {
                    found.append("\(table) does not carry its owner's prefix \(owner)_")
                }
                for other in files
                where other.owner != owner && !other.isTool
                    && !other.matches("\\b\(table)\\b").isEmpty
                {
                    found.append("\(other.path) names \(owner)'s table \(table)")
                }
            }
            return found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Chats/Store/ChatsSQLiteStore.swift",
                text: #"let sql = "CREATE TABLE servers (id INTEGER)""# + "\n"),
            SourceFile(
                path: "Sources/KeepKeptData/Chats/Store/ChatsPeek.swift",
                text: #"let sql = "SELECT count(*) FROM engines_readings""# + "\n"),
        ])

    /// The owners whose module implements `protocol`, by their folder.
    private static func owners(implementing protocolName: String, in files: [SourceFile]) -> Set<String> {
        Set(
            files.compactMap { file in
                file.matches(#"(?:extension|struct|actor|class|enum)\s+\w+\s*:[^{]*\b\#(protocolName)\b"#).isEmpty
                    ? nil : file.owner
            })
    }

    static let markersTablesSayWhatIsNew = SourceWall(
        rule: "every module with a markers table says what is new",
        violations: { files in
            let saying = owners(implementing: "SaysWhatIsNew", in: files)
            let marked = createdTables(files).filter { $0.table.hasSuffix("_markers") }
            return marked.compactMap { table, file in
                guard let owner = file.owner else { return nil }
                return saying.contains(owner) ? nil : "\(owner) has \(table) and does not say what is new"
            } + (marked.isEmpty ? ["no markers table found: the scan is not looking"] : [])
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Household/Store/HouseholdSQLiteStore.swift",
                text: #"let sql = "CREATE TABLE household_markers (subject BLOB)""# + "\n")
        ])

    static let subjectTablesForgetServers = SourceWall(
        rule: "every module with rows about a server forgets them when the server is forgotten",
        violations: { files in
            let forgetting = owners(implementing: "ForgetsServers", in: files)
            var found: [String] = []
            for file in files where file.isStoreCode {
                guard let owner = file.owner else { continue }
                let aboutServers = !file.matches(#"CREATE\s+TABLE\s+\w+\s*\([^;]*\bsubject\b"#).isEmpty
                if aboutServers, !forgetting.contains(owner) {
                    found.append("\(owner) keeps rows about servers and does not forget them")
                }
            }
            return found
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Household/Store/HouseholdSQLiteStore.swift",
                text: #"let sql = "CREATE TABLE household_readings (subject BLOB, sealed BLOB)""# + "\n")
        ])

    // MARK: - Shapes

    static let everyShapeIsTested = SourceWall(
        rule: "every kept shape in the sources has its versions read by the shape tests",
        violations: { files in
            let inSources = Set(files.flatMap { $0.matches(#"(?:enum|struct)\s+(\w+)\s*:\s*KeptShape\b"#) })
            let tested = Set(KeptShapeFixture.shapes.map { String(describing: $0) })
            return inSources.subtracting(tested).sorted().map { "\($0) is a kept shape with no shape test" }
                + (inSources.isEmpty ? ["no kept shape found: the scan is not looking"] : [])
        },
        breach: [
            SourceFile(
                path: "Sources/KeepKeptData/Chats/Layout.swift",
                text: "enum LayoutPreference: KeptShape {\n    static let version = 1\n}\n")
        ])
}
