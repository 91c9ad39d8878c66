// swift-tools-version: 6.0
import PackageDescription

/// Keep: durable local storage, keychain secrets, settings, chat history and sealed
/// private data for Swift apps, and `keep`, the terminal chat client built on them.
///
/// No package dependencies: everything beyond the toolchain is a Debian C library,
/// wrapped in a system-library target and imported only by the adapter that uses it.
///
/// Version 0.3.0 (`keep --version`; CHANGELOG.md). Licensed under the Apache License 2.0
/// (LICENSE).
let package = Package(
    name: "Keep",
    // The libraries are for the phone and the desktop alike; Linux, where everything is built and
    // tested, needs no entry. (Synchronization's Mutex sets the floor: macOS 15, iOS 18.)
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // What an app developer depends on: the ports, the adapters, the contract kit, the core.
        .library(name: "KeepPorts", targets: ["KeepPorts"]),
        .library(name: "KeepFileStore", targets: ["KeepFileStore"]),
        .library(name: "KeepSecretService", targets: ["KeepSecretService"]),
        .library(name: "KeepSQLite", targets: ["KeepSQLite"]),
        .library(name: "KeepSealed", targets: ["KeepSealed"]),
        .library(name: "KeepConformance", targets: ["KeepConformance"]),
        .library(name: "KeepCore", targets: ["KeepCore"]),
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
        // HTTP over TLS verified against one authority file alone (a server's `--ca`), which
        // FoundationNetworking cannot do; used on Linux only.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libssl, for the end-to-end tests' https servers only: nothing keep ships links it.
        .systemLibrary(name: "CSSL", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),

        // MARK: The libraries (products)

        // The ports: no C, no file I/O. Everything else depends on this.
        .target(name: "KeepPorts"),
        // Adapters, each named after its mechanism.
        .target(name: "KeepFileStore", dependencies: ["KeepPorts"]),
        .target(name: "KeepSecretService", dependencies: ["KeepPorts", "CLibSecret"]),
        // SQLite, wrapped once: connections on threads of their own, transactions, typed rows,
        // owners' named and walled migrations.
        .target(name: "KeepSQLite", dependencies: ["KeepPorts", "CSQLite"]),
        // libcrypto is Linux's: elsewhere the sealer is the platform's own (CryptoKit), not written yet.
        .target(
            name: "KeepSealed",
            dependencies: [
                "KeepPorts", "KeepFileStore", "KeepSQLite",
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
            ]),
        // The contracts as data, and the broken adapters that prove them.
        .target(name: "KeepConformance", dependencies: ["KeepPorts"]),
        // What the bytes mean: chats, settings, migration, boot. Ports only.
        .target(name: "KeepCore", dependencies: ["KeepPorts"]),

        // MARK: The app's own targets (package access, no product)

        // The chat engines (echo, and the remote one over HTTP), the rules of the network edge,
        // URLSession behind the HTTP port, and libcurl for a server verified against its own authority.
        // A server's text is shown by KeepTerminal's rule.
        .target(
            name: "KeepEngines",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepTerminal", .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ]),
        // The chat index: a cache of the chats' summaries and words beside the store.
        .target(name: "KeepChatIndex", dependencies: ["KeepPorts", "KeepCore", "KeepSQLite", "KeepFileStore"]),
        // Kept data's owners (what keep reads from servers, and its markers), each with its port
        // and stores. The engines' owner reads servers through the engines' HTTP port, so that
        // the edge's rules hold for it too.
        .target(
            name: "KeepKeptData", dependencies: ["KeepPorts", "KeepCore", "KeepSQLite", "KeepSealed", "KeepEngines"]),
        // Terminal rendering: Markdown, keys, and the one rule neutralising what a server, a file
        // or an import gave us (for the terminal and for JSON). No dependency: everything may use it.
        .target(name: "KeepTerminal"),
        // The chats' sealing: their data key and its recovery file, the store's sealing state
        // (its marker), and sealing or unsealing a store one chat at a time.
        .target(
            name: "KeepChatSealing", dependencies: ["KeepPorts", "KeepFileStore", "KeepSealed", "KeepChatIndex"]),
        // A turn: the question with its files and the typed-line history, asked of an engine
        // within its context budget, and recorded in the chat and its index.
        .target(
            name: "KeepConversation",
            dependencies: ["KeepPorts", "KeepCore", "KeepFileStore", "KeepEngines", "KeepChatIndex"]),
        // The composition root: the only place (besides the benchmarks) that builds adapters.
        .target(
            name: "KeepApp",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepFileStore", "KeepSQLite", "KeepSealed", "KeepEngines", "KeepChatIndex",
                "KeepKeptData", "KeepChatSealing", "KeepConversation",
                // The Secret Service is Linux's keychain; Platform chooses the adapters in one place.
                .target(name: "KeepSecretService", condition: .when(platforms: [.linux])),
                .target(name: "CProcess", condition: .when(platforms: [.linux])),
            ]
        ),
        // What each command prints: reports as values, their text and their JSON.
        .target(
            name: "KeepReports",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepFileStore", "KeepEngines", "KeepChatIndex", "KeepKeptData",
                "KeepChatSealing", "KeepConversation", "KeepApp", "KeepTerminal",
            ]),
        // The command line's parser and its generated usage and help, tested on its own.
        .target(name: "KeepCLI"),
        .executableTarget(
            name: "keep",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepFileStore", "KeepEngines", "KeepChatIndex", "KeepKeptData",
                "KeepChatSealing", "KeepConversation", "KeepTerminal", "KeepApp", "KeepReports",
                "KeepCLI", .target(name: "CLibEdit", condition: .when(platforms: [.linux])),
            ]),

        // MARK: Tools and test support (no product)

        // The file store's call recorder and fault injector: for test targets only.
        .target(name: "KeepFileStoreTesting", dependencies: ["KeepPorts", "KeepFileStore"]),
        // Child processes for tests (a private bus and keyring, secret-tool, cat and grep as
        // independent witnesses): Foundation's Process, which iOS does not have.
        .target(
            name: "KeepTestSupport",
            dependencies: ["KeepPorts", "KeepCore", "KeepSQLite", "KeepEngines", "KeepConformance"]),
        // The writer the kill -9 torture tests kill and reopen after.
        .executableTarget(
            name: "keep-torture",
            dependencies: [
                "KeepPorts", "KeepFileStore", "KeepSQLite", "KeepSealed", "KeepConformance", "KeepCore",
                "KeepChatIndex",
            ]),
        .executableTarget(
            name: "keep-bench",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepFileStore", "KeepSecretService", "KeepSQLite", "KeepSealed",
                "KeepEngines", "KeepChatIndex", "KeepConversation", "KeepApp", "CSQLite", "CCrypto",
            ]
        ),

        // MARK: Tests: one target per source target

        .testTarget(name: "KeepPortsTests", dependencies: ["KeepPorts", "KeepConformance"]),
        .testTarget(
            name: "KeepFileStoreTests",
            dependencies: ["KeepPorts", "KeepFileStore", "KeepFileStoreTesting", "KeepConformance"]),
        .testTarget(
            name: "KeepSecretServiceTests",
            dependencies: ["KeepPorts", "KeepSecretService", "KeepConformance", "KeepTestSupport"]),
        .testTarget(
            name: "KeepSQLiteTests", dependencies: ["KeepPorts", "KeepSQLite", "KeepConformance", "KeepTestSupport"]),
        .testTarget(
            name: "KeepSealedTests",
            dependencies: [
                "KeepPorts", "KeepSealed", "KeepSQLite", "KeepConformance", "KeepFileStore", "KeepTestSupport",
            ]),
        .testTarget(name: "KeepConformanceTests", dependencies: ["KeepPorts", "KeepConformance"]),
        .testTarget(
            name: "KeepCoreTests",
            dependencies: ["KeepPorts", "KeepCore", "KeepConformance", "KeepFileStore", "KeepFileStoreTesting"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "KeepEnginesTests",
            dependencies: ["KeepPorts", "KeepCore", "KeepEngines", "KeepConformance"]),
        .testTarget(
            name: "KeepChatIndexTests",
            dependencies: [
                "KeepPorts", "KeepChatIndex", "KeepCore", "KeepFileStore", "KeepFileStoreTesting", "KeepSQLite",
                "KeepConformance", "KeepTestSupport",
                // One test follows a turn from the turn runner into the index.
                "KeepConversation",
            ]),
        .testTarget(
            name: "KeepChatSealingTests",
            dependencies: [
                "KeepPorts", "KeepChatSealing", "KeepChatIndex", "KeepCore", "KeepFileStore", "KeepSealed",
                "KeepSQLite", "KeepConformance", "KeepTestSupport",
            ]),
        .testTarget(
            name: "KeepConversationTests",
            dependencies: [
                "KeepPorts", "KeepConversation", "KeepCore", "KeepEngines", "KeepFileStore", "KeepChatIndex",
                "KeepConformance", "KeepTestSupport",
            ]),
        .testTarget(
            name: "KeepKeptDataTests",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepKeptData", "KeepSealed", "KeepSQLite", "KeepEngines", "KeepConformance",
                "KeepTestSupport", "KeepSecretService",
            ]),
        .testTarget(name: "KeepTerminalTests", dependencies: ["KeepTerminal"]),
        .testTarget(
            name: "KeepAppTests",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepApp", "KeepEngines", "KeepKeptData", "KeepReports", "KeepSQLite",
                "KeepSealed", "KeepSecretService", "KeepConformance", "KeepTestSupport", "KeepFileStore",
                "KeepChatIndex", "KeepConversation",
            ]),
        .testTarget(
            name: "KeepReportsTests",
            dependencies: [
                "KeepPorts", "KeepCore", "KeepEngines", "KeepReports", "KeepApp", "KeepConversation", "KeepConformance",
                "KeepTerminal",
            ]),
        .testTarget(name: "KeepCLITests", dependencies: ["KeepCLI"]),
        // Depends on the keep executable so `swift build --build-tests` builds the binary it runs.
        .testTarget(
            name: "KeepEndToEndTests",
            dependencies: [
                "KeepPorts", "KeepConformance", "KeepTestSupport", "keep",
                .target(name: "CSSL", condition: .when(platforms: [.linux])),
            ]),
        // kill -9 at random moments, thousands of times, against keep-torture.
        .testTarget(
            name: "KeepTortureTests",
            dependencies: [
                "keep-torture", "KeepPorts", "KeepFileStore", "KeepSQLite", "KeepSealed", "KeepConformance", "KeepCore",
                "KeepChatIndex",
            ]),
        // keep-bench --quick's code paths and the shape of its output; never a timing.
        .testTarget(name: "KeepBenchTests", dependencies: ["keep-bench", "KeepConformance"]),
        // The code of the README, docs/ and the DocC articles, compiled (and run where it can
        // be): DocumentedCodeTests finds every swift block of those pages in these sources.
        .testTarget(
            name: "KeepDocsTests",
            dependencies: [
                "KeepPorts", "KeepFileStore", "KeepSecretService", "KeepSQLite", "KeepSealed", "KeepConformance",
                "KeepCore", "KeepApp", "KeepTestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
