import Foundation
import Testing

/// The private session bus `scripts/with-keyring` (and so `scripts/test`) starts, with a
/// GNOME Keyring of its own on it: the only session bus a test may store a secret on.
///
/// The script exports the bus's address a second time, as ``markerVariable``; a test
/// process whose `DBUS_SESSION_BUS_ADDRESS` is not that address is on someone's real
/// session (a developer's desktop, where a plain `swift test` would write into their login
/// keyring), and a test that would talk to it refuses to run instead
/// (``OnTheScriptsKeyring``).
package enum ScriptsKeyring {
    /// The variable `scripts/with-keyring` sets to the address of the bus it started.
    package static let markerVariable = "KEEP_PRIVATE_SESSION_BUS"

    /// The one line a test that needs the scripts' keyring fails with anywhere else.
    package static let refusal =
        "refusing to touch this session's keyring: run the tests with scripts/test, or this one with "
        + "scripts/with-keyring swift test --filter …, which start a private bus and keyring"

    /// The session bus's address, when it is the private one the scripts started; `nil` on
    /// any other session, and with no session bus at all.
    package static func busAddress(
        in environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty,
            environment[markerVariable] == address
        else { return nil }
        return address
    }

    /// Why a test refuses to run off the scripts' keyring: ``refusal``.
    package struct Refusal: Error, CustomStringConvertible {
        package var description: String { ScriptsKeyring.refusal }
    }

    /// The scripts' private bus address; throws ``Refusal`` on any other session.
    package static func requireBus() throws(Refusal) -> String {
        guard let address = busAddress() else { throw Refusal() }
        return address
    }
}

/// The trait of a test (or every test of a suite) that talks to the session's keyring: it
/// runs only on the private one the scripts start, and otherwise fails at once with
/// ``ScriptsKeyring/refusal``, touching nothing.
package struct OnTheScriptsKeyring: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        _ = try ScriptsKeyring.requireBus()
        try await function()
    }
}

extension Trait where Self == OnTheScriptsKeyring {
    /// Runs only on the scripts' private keyring; fails with one line elsewhere.
    package static var onTheScriptsKeyring: Self { Self() }
}
