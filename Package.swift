// swift-tools-version: 6.0
import PackageDescription

/// Keep: durable local storage, keychain secrets, settings, chat history and sealed
/// private data for Swift apps, and `keep`, the terminal chat client built on them.
///
/// No package dependencies: everything beyond the toolchain is a Debian C library,
/// wrapped in a system-library target and imported only by the adapter that uses it.
///
/// Version 0.2.0 (`keep --version`; CHANGELOG.md). Licensed under the Apache License 2.0
/// (LICENSE).
let package = Package(
    name: "Keep",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "KeepPorts", targets: ["KeepPorts"]),
        .library(name: "KeepFileStore", targets: ["KeepFileStore"]),
        .library(name: "KeepSecretService", targets: ["KeepSecretService"]),
        .library(name: "KeepSealed", targets: ["KeepSealed"]),
        .library(name: "KeepConformance", targets: ["KeepConformance"]),
        .library(name: "KeepCore", targets: ["KeepCore"]),
        .library(name: "KeepApp", targets: ["KeepApp"]),
        .executable(name: "keep", targets: ["keep"]),
        .executable(name: "keep-bench", targets: ["keep-bench"]),
    ],
    targets: [
        // C libraries from Debian: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        // prctl(2), which is variadic and so not callable from Swift: Linux's libc, no package.
        .systemLibrary(name: "CProcess"),
        // Line editing and history for the interactive chat; used on Linux only.
        .systemLibrary(name: "CLibEdit", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),

        // The ports: no C, no file I/O. Everything else depends on this.
        .target(name: "KeepPorts"),
        // Adapters, each named after its mechanism.
        .target(name: "KeepFileStore", dependencies: ["KeepPorts"]),
        // The file store's call recorder and fault injector: for test targets only, never a product.
        .target(name: "KeepFileStoreTesting", dependencies: ["KeepPorts", "KeepFileStore"]),
        .target(name: "KeepSecretService", dependencies: ["KeepPorts", "CLibSecret"]),
        // libcrypto is Linux's: elsewhere the sealer is the platform's own (CryptoKit), not written yet.
        .target(
            name: "KeepSealed",
            dependencies: ["KeepPorts", "CSQLite", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]),
        // The contracts as data, and the broken adapters that prove them.
        .target(name: "KeepConformance", dependencies: ["KeepPorts"]),
        // What the bytes mean: chats, settings, migration, boot. Ports only.
        .target(name: "KeepCore", dependencies: ["KeepPorts"]),
        // The composition root: the only place (besides the benchmarks) that builds adapters.
        .target(
            name: "KeepApp",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepFileStore", "KeepSealed",
                // The Secret Service is Linux's keychain; Platform chooses the adapters in one place.
                .target(name: "KeepSecretService", condition: .when(platforms: [.linux])),
                .target(name: "CProcess", condition: .when(platforms: [.linux])),
            ]
        ),
        // The command line's parser and its generated usage and help: not a product, so
        // that the parser is tested on its own (KeepCLITests) without being public API.
        .target(name: "KeepCLI"),
        .executableTarget(
            name: "keep",
            dependencies: ["KeepApp", "KeepCLI", .target(name: "CLibEdit", condition: .when(platforms: [.linux]))]),
        // A test tool, not a product: the writer the kill -9 torture tests kill and reopen after.
        .executableTarget(
            name: "keep-torture", dependencies: ["KeepPorts", "KeepFileStore", "KeepSealed", "KeepConformance"]),
        .executableTarget(
            name: "keep-bench",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepFileStore", "KeepSecretService", "KeepSealed", "KeepApp", "CSQLite",
                "CCrypto",
            ]
        ),

        .testTarget(name: "KeepPortsTests", dependencies: ["KeepPorts", "KeepConformance"]),
        .testTarget(
            name: "KeepFileStoreTests", dependencies: ["KeepFileStore", "KeepFileStoreTesting", "KeepConformance"]),
        .testTarget(name: "KeepSecretServiceTests", dependencies: ["KeepSecretService", "KeepConformance"]),
        .testTarget(name: "KeepSealedTests", dependencies: ["KeepSealed", "KeepConformance"]),
        .testTarget(name: "KeepConformanceTests", dependencies: ["KeepConformance"]),
        .testTarget(
            name: "KeepCoreTests",
            dependencies: ["KeepCore", "KeepConformance", "KeepFileStore", "KeepFileStoreTesting"],
            exclude: ["Fixtures"]),
        .testTarget(name: "KeepAppTests", dependencies: ["KeepApp", "KeepConformance"]),
        .testTarget(name: "KeepCLITests", dependencies: ["KeepCLI"]),
        // Depends on the keep executable so `swift build --build-tests` builds the binary it runs.
        .testTarget(name: "KeepEndToEndTests", dependencies: ["KeepPorts", "KeepConformance", "keep"]),
        // kill -9 at random moments, thousands of times, against keep-torture.
        .testTarget(
            name: "KeepTortureTests",
            dependencies: ["keep-torture", "KeepPorts", "KeepFileStore", "KeepSealed", "KeepConformance"]),
        // keep-bench --quick's code paths and the shape of its output; never a timing.
        .testTarget(name: "KeepBenchTests", dependencies: ["keep-bench", "KeepConformance"]),
        // The code of the README, docs/ and the DocC articles, compiled (and run where it can
        // be): DocumentedCodeTests finds every swift block of those pages in these sources.
        .testTarget(
            name: "KeepDocsTests",
            dependencies: [
                "KeepPorts", "KeepFileStore", "KeepSecretService", "KeepSealed", "KeepConformance", "KeepCore",
                "KeepApp",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
