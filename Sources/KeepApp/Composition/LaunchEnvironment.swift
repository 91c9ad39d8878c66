import Foundation
import KeepFileStore
import KeepPorts

/// The process environment, read once by `keep`'s `main` and handed down as a value, so
/// no code of keep's below the edge reads a variable of its own, and every choice made
/// from one (the data root, the keyring's bus, keys for process memory) can be tested with
/// an environment the test writes.
package struct LaunchEnvironment: Sendable {
    /// The variables, as the process was given them.
    package let variables: [String: String]

    /// The conventional variables that hold provider keys, and the keychain slot each
    /// seeds when no keyring answers; the first variable set wins for a slot.
    package static let keyVariables: [(variable: String, slot: SecretSlot)] = [
        ("OPENAI_API_KEY", .openai), ("ANTHROPIC_API_KEY", .anthropic), ("GOOGLE_API_KEY", .google),
        ("GEMINI_API_KEY", .google), ("OPENROUTER_API_KEY", .openrouter),
    ]

    /// The environment `variables` (pass `ProcessInfo.processInfo.environment`, or a test's
    /// own).
    package init(_ variables: [String: String]) {
        self.variables = variables
    }

    /// The data root (`$XDG_DATA_HOME/keep`, else `$HOME/.local/share/keep`); throws
    /// `StorageError.Code.unavailable` when neither variable is an absolute path.
    package func dataRoot() throws(StorageError) -> String {
        try DataRoot.resolve(environment: variables)
    }

    /// The D-Bus address of the session bus: `DBUS_SESSION_BUS_ADDRESS` when set, else the
    /// `bus` socket in an absolute `XDG_RUNTIME_DIR` when one is there, else `nil` (no
    /// session bus to find a keyring on).
    package var sessionBusAddress: String? {
        if let address = variables["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = variables["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        let socket = (runtime as NSString).appendingPathComponent("bus")
        var status = stat()
        // Only a socket is a bus; a stale file of that name would only fail to connect.
        guard stat(socket, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=\(socket)"
    }

    /// The provider keys the environment holds, for a process-memory keychain: each slot's
    /// key under its `default` account, with the variable it came from. Empty values are
    /// left out (an empty key is no key).
    package var environmentKeys: [(variable: String, ref: SecretRef, value: String)] {
        var seen = Set<SecretSlot>()
        var keys: [(variable: String, ref: SecretRef, value: String)] = []
        for (variable, slot) in Self.keyVariables {
            guard !seen.contains(slot), let value = variables[variable], !value.isEmpty else { continue }
            seen.insert(slot)
            keys.append((variable, SecretRef(slot), value))
        }
        return keys
    }
}
