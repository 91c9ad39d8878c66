import Foundation
import KeepConformance

/// A GNOME Keyring of a test's own, on a bus of its own, under a home directory in the
/// test's temporary directory: the real Secret Service, which the test may lock or leave
/// without a default collection without touching anyone else's keyring.
///
/// Use ``with(unlocked:on:_:)``: it always stops the keyring and the bus it made, whatever
/// the test does.
final class PrivateKeyring: Sendable {
    let directory: TemporaryDirectory
    let bus: PrivateBus
    /// The keyring's `HOME`, where it keeps its keyring files.
    let home: String
    private let daemon: Daemon

    /// Runs `body` with a fresh keyring, then stops it (and the bus, when it made one).
    ///
    /// `unlocked`: started with `--unlock` and a password of its own, which makes an
    /// unlocked `login` collection that the `default` alias names. Otherwise the keyring
    /// has no login keyring and no default collection. `bus`: a bus the test already runs,
    /// or `nil` for a new one.
    static func with<T>(
        unlocked: Bool = true, on bus: PrivateBus? = nil, _ body: (PrivateKeyring) async throws -> T
    ) async throws -> T {
        let directory = try TemporaryDirectory(prefix: "keep-keyring")
        func run(on bus: PrivateBus) async throws -> T {
            let keyring = try await PrivateKeyring(unlocked: unlocked, bus: bus, directory: directory)
            defer { keyring.stop() }
            return try await body(keyring)
        }
        if let bus { return try await run(on: bus) }
        let ownBus = try await PrivateBus(in: directory)
        defer { ownBus.stop() }
        return try await run(on: ownBus)
    }

    private init(unlocked: Bool, bus: PrivateBus, directory: TemporaryDirectory) async throws {
        self.directory = directory
        self.bus = bus
        home = directory.appending("home")
        let runtime = directory.appending("run")
        for path in [home, runtime] {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        let environment = bus.environment([
            "HOME": home, "XDG_RUNTIME_DIR": runtime, "XDG_DATA_HOME": "\(home)/.local/share",
            "XDG_CONFIG_HOME": "\(home)/.config", "XDG_CACHE_HOME": "\(home)/.cache",
        ])
        let password = unlocked ? Data(UUID().uuidString.utf8) : nil
        daemon = try Daemon(
            "gnome-keyring-daemon", ["--foreground", "--components=secrets"] + (unlocked ? ["--unlock"] : []),
            environment: environment, input: password)
        do {
            // Ready when it owns the Secret Service's name; gdbus waits for exactly that.
            try await ToolRun.run(
                "gdbus", ["wait", "--address", bus.address, "--timeout", "60", "org.freedesktop.secrets"]
            ).succeeded("gdbus wait for the keyring")
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the keyring; the bus stays up for whoever started it.
    func stop() {
        daemon.stop()
    }

    /// The object path the `default` alias names, or `/` when there is none.
    func defaultCollectionPath() async throws -> String {
        let reply = try await bus.send([
            "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.ReadAlias", "string:default",
        ])
        guard let quote = reply.output.firstIndex(of: "\""),
            let end = reply.output[quote...].dropFirst().firstIndex(of: "\"")
        else { throw ToolFailure(what: "ReadAlias", status: 0, errors: reply.output) }
        return String(reply.output[reply.output.index(after: quote)..<end])
    }

    /// Locks the default collection, as a user's keyring tool would (the Service's `Lock`).
    func lockDefaultCollection() async throws {
        let path = try await defaultCollectionPath()
        try await bus.send([
            "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
            "array:objpath:\(path)",
        ])
    }

    /// Whether the default collection is locked, asked of the service directly.
    func defaultCollectionIsLocked() async throws -> Bool {
        let path = try await defaultCollectionPath()
        let reply = try await bus.send([
            "--dest=org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties.Get",
            "string:org.freedesktop.Secret.Collection", "string:Locked",
        ])
        return reply.output.contains("boolean true")
    }
}
