import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// The manifest as SwiftPM reads it (`swift package dump-package`): which targets need
/// Linux, and which may be used on any platform.
@Suite("The manifest keeps Linux-only pieces Linux-only")
struct ManifestTests {
    /// The libraries that nothing in them ties to Linux.
    static let portable = ["KeepPorts", "KeepFileStore", "KeepCore", "KeepConformance"]
    /// C libraries Debian has and an Apple platform does not (libcrypto, libsecret, libedit).
    static let linuxOnly: Set = ["CCrypto", "CLibSecret", "CLibEdit", "KeepSecretService"]

    struct Dependency {
        let name: String
        /// The platforms it is limited to; empty when it is for every platform.
        let platforms: [String]
    }

    /// Every target's dependencies, from the manifest SwiftPM evaluated.
    static func dependencies() async throws -> [String: [Dependency]] {
        // A scratch directory of its own: the `swift test` running this holds the lock on
        // the package's own `.build`, and dump-package would wait for it for ever.
        let scratch = try TemporaryDirectory()
        let run = try await ToolRun.run(
            "swift",
            ["package", "--package-path", SourceTree.root.path, "--scratch-path", scratch.path, "dump-package"])
        guard run.status == 0 else { throw ManifestFailure(description: "dump-package failed: \(run.errors)") }
        let manifest = try JSONDecoder().decode(Manifest.self, from: run.outputBytes)
        return Dictionary(
            manifest.targets.map { target in
                (target.name, target.dependencies.compactMap(\.dependency))
            }, uniquingKeysWith: { first, _ in first })
    }

    @Test("the ports, the file store, the core and the contract kit reach no system library on any platform")
    func portableLibrariesReachNoSystemLibrary() async throws {
        let graph = try await Self.dependencies()
        #expect(graph["KeepSealed"]?.contains { $0.name == "CCrypto" } == true, "the graph was read")
        for library in Self.portable {
            var seen: Set<String> = []
            var next = [library]
            while let target = next.popLast() {
                guard seen.insert(target).inserted else { continue }
                next += (graph[target] ?? []).map(\.name)
            }
            let reached = seen.filter { $0.hasPrefix("C") || Self.linuxOnly.contains($0) }
            #expect(reached.isEmpty, "\(library) reaches \(reached.sorted())")
        }
    }

    @Test("every library's dependency on a Linux-only piece is declared for Linux alone")
    func linuxOnlyDependenciesAreConditional() async throws {
        let graph = try await Self.dependencies()
        let libraries = ["KeepSealed", "KeepApp"] + Self.portable
        var conditioned = 0
        for library in libraries {
            for dependency in graph[library] ?? [] where Self.linuxOnly.contains(dependency.name) {
                #expect(dependency.platforms == ["linux"], "\(library) → \(dependency.name): \(dependency.platforms)")
                conditioned += 1
            }
        }
        #expect(conditioned >= 2, "the pair: KeepSealed → CCrypto and KeepApp → KeepSecretService are there")
    }

    @Test("the manifest names iOS and macOS: the libraries are for the phone as much as the desktop")
    func platformsNameThePhone() async throws {
        let scratch = try TemporaryDirectory()
        let run = try await ToolRun.run(
            "swift",
            ["package", "--package-path", SourceTree.root.path, "--scratch-path", scratch.path, "dump-package"])
        let json = try JSONSerialization.jsonObject(with: Data(run.outputBytes)) as? [String: Any] ?? [:]
        let names = Set((json["platforms"] as? [[String: Any]] ?? []).compactMap { $0["platformName"] as? String })
        #expect(names == ["ios", "macos"], "\(names)")
    }

    @Test("the portability wall covers every library product an Apple platform would use")
    func portabilityWallCoversTheProducts() async throws {
        let products = try await TestOnlyTargetsTests.manifest().products
        let libraries = Set(products.filter { !["keep", "keep-bench"].contains($0.key) }.flatMap(\.value))
        #expect(libraries.contains("KeepPorts"), "the products were read: \(products)")
        #expect(HouseWall.portableTargets == libraries.subtracting(Self.linuxOnly))
    }

    // MARK: - Imports

    /// The modules of this package a file imports (`import X`, `@testable import X`,
    /// `internal import X`, `import struct X.Y`), among `modules`.
    static func imports(of file: SourceFile, among modules: Set<String>) -> Set<String> {
        let pattern =
            #"(?m)^\s*(?:@\w+\s+)*(?:(?:internal|public|private|fileprivate|package)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias|actor)\s+)?(\w+)"#
        return Set(file.matches(pattern)).intersection(modules)
    }

    /// Every import of a package module that its target does not declare as a dependency.
    static func undeclaredImports(_ files: [SourceFile], _ graph: [String: [Dependency]]) -> [String] {
        let modules = Set(graph.keys)
        var found: [String] = []
        for file in files {
            guard let declared = graph[file.target].map({ Set($0.map(\.name)) }) else {
                found.append("\(file.path) is in no target of the manifest")
                continue
            }
            for module in imports(of: file, among: modules).subtracting(declared).subtracting([file.target]).sorted() {
                found.append("\(file.path) imports \(module), which \(file.target) does not declare")
            }
        }
        return found
    }

    @Test("every module of the package a target imports is a dependency the manifest declares for it")
    func everyImportIsDeclared() async throws {
        let graph = try await Self.dependencies()
        let files = try SourceTree.sources() + SourceTree.tests()
        #expect(files.contains { $0.path.hasPrefix("Tests/") }, "the tests were read too")
        #expect(Self.undeclaredImports(files, graph) == [])
        // The scan sees a breach: the core importing SQLite, a test importing what it does not declare.
        let breach = [
            SourceFile(path: "Sources/KeepCore/Leak.swift", text: "import KeepSQLite\n"),
            SourceFile(path: "Tests/KeepCLITests/Leak.swift", text: "@testable import KeepApp\n"),
        ]
        #expect(
            Self.undeclaredImports(breach, graph) == [
                "Sources/KeepCore/Leak.swift imports KeepSQLite, which KeepCore does not declare",
                "Tests/KeepCLITests/Leak.swift imports KeepApp, which KeepCLITests does not declare",
            ])
    }

    struct ManifestFailure: Error, CustomStringConvertible {
        let description: String
    }
}

// MARK: - The part of dump-package's JSON read here

private struct Manifest: Decodable {
    struct Target: Decodable {
        let name: String
        let dependencies: [TargetDependency]
    }
    let targets: [Target]
}

/// `{"byName": [name, condition]}`, `{"target": [name, condition]}` or `{"product": [...]}`.
private struct TargetDependency: Decodable {
    let dependency: ManifestTests.Dependency?

    private enum Kind: String, CodingKey { case byName, target }
    private struct Condition: Decodable { let platformNames: [String]? }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first else {
            dependency = nil
            return
        }
        var pair = try container.nestedUnkeyedContainer(forKey: kind)
        let name = try pair.decode(String.self)
        let condition = try pair.decodeIfPresent(Condition.self)
        dependency = ManifestTests.Dependency(name: name, platforms: condition?.platformNames ?? [])
    }
}
