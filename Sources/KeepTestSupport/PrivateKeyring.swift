import Foundation
import KeepConformance
import Synchronization

/// A GNOME Keyring of a test's own, on a bus of its own, under a home directory in the
/// test's temporary directory: the real Secret Service, which the test may lock or leave
/// without a default collection without touching anyone else's keyring.
///
/// Use ``with(unlocked:on:_:)``: it always stops the keyring and the bus it made, whatever
/// the test does.
package final class PrivateKeyring: Sendable {
    /// The test's temporary directory, holding the keyring's home (and the bus's socket,
    /// when the keyring made its own bus).
    package let directory: TemporaryDirectory
    /// The bus the keyring answers on: point a client at its environment.
    package let bus: PrivateBus
    /// The keyring's `HOME`, where it keeps its keyring files.
    package let home: String
    /// The keyring daemon running now; `nil` once stopped.
    private let daemon: Mutex<Daemon?>
    private let environment: [String: String]
    private let password: Data?

    /// Runs `body` with a fresh keyring, then stops it (and the bus, when it made one).
    ///
    /// `unlocked`: started with `--unlock` and a password of its own, which makes an
    /// unlocked `login` collection that the `default` alias names. Otherwise the keyring
    /// has no login keyring and no default collection. `bus`: a bus the test already runs,
    /// or `nil` for a new one.
    package static func with<T>(
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
        self.environment = environment
        password = unlocked ? Data(UUID().uuidString.utf8) : nil
        daemon = Mutex(nil)
        try await start()
    }

    /// Starts the daemon on this keyring's home and waits until it owns the Secret
    /// Service's name; with a password, the login keyring is unlocked with it.
    ///
    /// A daemon that exits before it owns the name is started once more (a full run saw
    /// one do so, once in many); a second failure, or a daemon still running but never on
    /// the bus, throws with what the daemon wrote to its standard error.
    private func start() async throws {
        for attempt in 1...2 {
            let log = directory.appending("keyring-daemon-\(attempt).log")
            let started = try Daemon(
                "gnome-keyring-daemon",
                ["--foreground", "--components=secrets"] + (password == nil ? [] : ["--unlock"]),
                environment: environment, input: password, errors: log)
            daemon.withLock { $0 = started }
            do {
                // Ready when it owns the Secret Service's name; gdbus waits for exactly that.
                try await ToolRun.run(
                    "gdbus", ["wait", "--address", bus.address, "--timeout", "60", "org.freedesktop.secrets"]
                ).succeeded("gdbus wait for the keyring")
                return
            } catch {
                let exited = !started.isRunning
                stop()
                if exited && attempt == 1 { continue }
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw ToolFailure(
                    what: "gnome-keyring-daemon (\(exited ? "exited" : "still running") without owning "
                        + "org.freedesktop.secrets; \(error))", status: 1, errors: said)
            }
        }
    }

    /// Stops the keyring; the bus stays up for whoever started it.
    package func stop() {
        daemon.withLock { $0.take() }?.stop()
    }

    /// Stops the keyring and starts it again on the same files, unlocked with the same
    /// password: how a test unlocks a collection it locked (gnome-keyring unlocks only
    /// through a prompt otherwise), or brings back a daemon it stopped.
    package func restart() async throws {
        stop()
        try await start()
    }

    /// The object path the `default` alias names, or `/` when there is none.
    package func defaultCollectionPath() async throws -> String {
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
    package func lockDefaultCollection() async throws {
        let path = try await defaultCollectionPath()
        try await bus.send([
            "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
            "array:objpath:\(path)",
        ])
    }

    /// Whether the default collection is locked, asked of the service directly.
    package func defaultCollectionIsLocked() async throws -> Bool {
        let path = try await defaultCollectionPath()
        let reply = try await bus.send([
            "--dest=org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties.Get",
            "string:org.freedesktop.Secret.Collection", "string:Locked",
        ])
        return reply.output.contains("boolean true")
    }
}
