import Foundation
import KeepConformance
import KeepTestSupport
import Testing

/// The README's manifest, which a package that uses Keep copies (after its tools version
/// and `import PackageDescription`, which the README names in prose): here verbatim (so that
/// `DocumentedCodeTests` finds it), and loaded by SwiftPM beside a checkout of Keep, so that
/// every product it names is one Keep has.
@Suite("The README's package manifest")
struct ManifestSnippetTests {
    static let manifest = """
        let package = Package(
            name: "MyApp",
            platforms: [.macOS(.v15)],
            dependencies: [
                .package(path: "../Keep")
            ],
            targets: [
                .executableTarget(
                    name: "MyApp",
                    dependencies: [
                        .product(name: "KeepPorts", package: "Keep"),
                        .product(name: "KeepFileStore", package: "Keep"),
                        .product(name: "KeepSecretService", package: "Keep"),
                        .product(name: "KeepSQLite", package: "Keep"),
                        .product(name: "KeepSealed", package: "Keep"),
                        .product(name: "KeepCore", package: "Keep"),
                    ]),
                .testTarget(
                    name: "MyAppTests",
                    dependencies: ["MyApp", .product(name: "KeepConformance", package: "Keep")]),
            ]
        )
        """

    /// SwiftPM's verdict on `manifest` as the package `MyApp`, beside Keep's own checkout
    /// (named `Keep`, as the manifest's path says).
    static func load(_ manifest: String) async throws -> ToolRun {
        let directory = try TemporaryDirectory(prefix: "keep-consumer")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try FileManager.default.createSymbolicLink(atPath: directory.appending("Keep"), withDestinationPath: root.path)
        let app = directory.appending("MyApp")
        for folder in ["Sources/MyApp", "Tests/MyAppTests"] {
            try FileManager.default.createDirectory(atPath: "\(app)/\(folder)", withIntermediateDirectories: true)
        }
        let header = "// swift-tools-version: 6.0\nimport PackageDescription\n\n"
        try Data((header + manifest).utf8).write(to: URL(fileURLWithPath: "\(app)/Package.swift"))
        try Data("print(\"hello\")\n".utf8).write(to: URL(fileURLWithPath: "\(app)/Sources/MyApp/main.swift"))
        try Data("import Testing\n".utf8).write(to: URL(fileURLWithPath: "\(app)/Tests/MyAppTests/MyAppTests.swift"))
        return try await ToolRun.run("swift", ["package", "--package-path", app, "show-dependencies"])
    }

    @Test("the README's manifest loads beside a checkout of Keep, every product it names being Keep's")
    func manifestLoads() async throws {
        let loaded = try await Self.load(Self.manifest)
        #expect(loaded.status == 0, "\(loaded.errors)")
        // The check sees a product Keep does not have.
        let wrong = try await Self.load(Self.manifest.replacingOccurrences(of: "\"KeepSealed\"", with: "\"KeepSeals\""))
        #expect(wrong.status != 0 && wrong.errors.contains("KeepSeals"), "\(wrong.errors)")
    }
}
