import Foundation
import KeepConformance

/// A D-Bus session bus of a test's own: a `dbus-daemon` child listening on a socket in the
/// test's temporary directory.
///
/// Its configuration names no service directories, so nothing on it is ever started on
/// demand: a Secret Service is there only when a test starts one (``PrivateKeyring``).
package final class PrivateBus: Sendable {
    /// The bus's D-Bus address, for an adapter's `init(busAddress:)` or a client's
    /// `DBUS_SESSION_BUS_ADDRESS`.
    package let address: String
    private let daemon: Daemon

    /// Starts a bus listening in `directory`, and returns once it accepts connections.
    package init(in directory: TemporaryDirectory) async throws {
        let config = directory.appending("bus.conf")
        let socket = directory.appending("bus")
        let text = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        // --print-address writes the address once the bus listens: the readiness signal.
        daemon = try Daemon("dbus-daemon", ["--config-file=\(config)", "--nofork", "--print-address=1"])
        do {
            let printed = try await daemon.readUntil("\n")
            address = String(printed.prefix { $0 != "\n" })
        } catch {
            daemon.stop()
            throw error
        }
    }

    /// Stops the bus; everything connected to it loses it.
    package func stop() {
        daemon.stop()
    }

    /// The environment a client or daemon on this bus runs in: this process's, with the
    /// bus address replaced and no display to reach a desktop through.
    package func environment(_ overrides: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment.merge(overrides) { $1 }
        return environment
    }

    /// Runs `dbus-send` against this bus, for the calls a user's keyring tool would make.
    @discardableResult
    package func send(_ arguments: [String]) async throws -> ToolRun {
        try await ToolRun.run("dbus-send", ["--bus=\(address)", "--print-reply"] + arguments).succeeded("dbus-send")
    }
}
