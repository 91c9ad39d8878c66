import Foundation
import KeepConformance

/// `dbus-monitor` on a test's private bus: what actually crossed D-Bus while code ran.
///
/// Use ``with(_:_:)``, which always stops the monitor.
package final class BusMonitor: Sendable {
    private let bus: PrivateBus
    private let daemon: Daemon

    /// Runs `body` with a monitor watching `bus`, then stops the monitor.
    package static func with<T>(_ bus: PrivateBus, _ body: (BusMonitor) async throws -> T) async throws -> T {
        let monitor = try await BusMonitor(bus)
        defer { monitor.daemon.stop() }
        return try await body(monitor)
    }

    private init(_ bus: PrivateBus) async throws {
        self.bus = bus
        daemon = try Daemon("dbus-monitor", ["--address", bus.address])
        do {
            // It watches once it has given up its own name to become a monitor, and says so.
            _ = try await daemon.readUntil("member=NameLost")
        } catch {
            daemon.stop()
            throw error
        }
    }

    /// Runs `body` and returns every message the bus carried while it ran, as dbus-monitor
    /// prints them.
    ///
    /// Marker calls before and after `body` bracket the traffic, and the monitor has been
    /// read up to the closing marker, so nothing `body` sent can be missing.
    package func traffic(during body: () async throws -> Void) async throws -> String {
        let begin = "keep-begin-\(UUID().uuidString)"
        let end = "keep-end-\(UUID().uuidString)"
        try await mark(begin)
        try await body()
        try await mark(end)
        let seen = try await daemon.readUntil(end)
        guard let from = seen.range(of: begin), let to = seen.range(of: end) else { return "" }
        return String(seen[from.upperBound..<to.lowerBound])
    }

    /// A harmless call carrying `marker`, which dbus-monitor prints like any other.
    private func mark(_ marker: String) async throws {
        try await bus.send([
            "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
            "string:\(marker)",
        ])
    }
}
