import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// The targets that are no product: the file store's test double (`KeepFileStoreTesting`)
/// reaches test targets only, and the command line's parser (`KeepCLI`) the `keep` command
/// and its tests only, read from the manifest SwiftPM evaluates.
@Suite("Test doubles and the CLI parser stay out of the products")
struct TestOnlyTargetsTests {
    struct Target {
        let name: String
        let type: String
        let dependencies: [String]
    }

    /// The products' targets, and every target with its type and dependencies.
    static func manifest() async throws -> (products: [String: [String]], targets: [Target]) {
        // A scratch directory of its own: the `swift test` running this holds the lock on
        // the package's own `.build`.
        let scratch = try TemporaryDirectory()
        let run = try await ToolRun.run(
            "swift",
            ["package", "--package-path", SourceTree.root.path, "--scratch-path", scratch.path, "dump-package"])
        #expect(run.status == 0, "dump-package failed: \(run.errors)")
        let json = try JSONSerialization.jsonObject(with: Data(run.outputBytes)) as? [String: Any] ?? [:]
        var products: [String: [String]] = [:]
        for product in json["products"] as? [[String: Any]] ?? [] {
            if let name = product["name"] as? String { products[name] = product["targets"] as? [String] ?? [] }
        }
        let targets = (json["targets"] as? [[String: Any]] ?? []).compactMap { target -> Target? in
            guard let name = target["name"] as? String, let type = target["type"] as? String else { return nil }
            // Each dependency is one of {"byName": [name, …]}, {"target": [name, …]}, {"product": [name, …]}.
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                dependency.values.compactMap { ($0 as? [Any])?.first as? String }.first
            }
            return Target(name: name, type: type, dependencies: dependencies)
        }
        return (products, targets)
    }

    @Test(
        "a target that is no product is depended on only by the targets allowed to",
        arguments: [
            ("KeepFileStoreTesting", ["KeepFileStoreTests", "KeepCoreTests", "KeepChatIndexTests"]),
            ("KeepCLI", ["keep", "KeepCLITests"]),
        ]
    )
    func onlyAllowedDependents(target: String, allowed: [String]) async throws {
        let manifest = try await Self.manifest()
        #expect(manifest.targets.contains { $0.name == target }, "the manifest was read and has \(target)")
        for (product, targets) in manifest.products {
            #expect(!targets.contains(target) && product != target, "\(product) ships \(target)")
        }
        let dependents = manifest.targets.filter { $0.dependencies.contains(target) }
        // The pair: each allowed dependent is seen depending on it.
        #expect(Set(dependents.map(\.name)) == Set(allowed), "\(dependents.map(\.name))")
        for dependent in dependents where dependent.name != "keep" {
            #expect(dependent.type == "test", "\(dependent.name) is a \(dependent.type) target")
        }
    }
}
