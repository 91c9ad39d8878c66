import Foundation
import KeepConformance
import KeepPorts
import KeepTestSupport
import Testing

@testable import KeepApp

/// The keychain the composition root picks, for each state of a real keyring of the
/// test's own: a locked or refusing keyring stays the keyring (so every read says why),
/// and only no Secret Service at all gives process memory.
@Suite(
    "The keychain for each keyring state",
    .enabled(
        if: ToolRun.isInstalled("gnome-keyring-daemon") && ToolRun.isInstalled("dbus-daemon"),
        "needs gnome-keyring-daemon and dbus-daemon (scripts/lib/packages.sh installs them)"))
struct PlatformKeyringTests {
    @Test(
        "a locked keyring stays the keyring: presence is 'cannot tell: locked', never none, and no key is taken from the environment"
    )
    func lockedStaysTheKeyring() async throws {
        try await PrivateKeyring.with { keyring in
            let environment = LaunchEnvironment([
                "DBUS_SESSION_BUS_ADDRESS": keyring.bus.address, "OPENAI_API_KEY": "sk-from-the-environment",
            ])
            let ref = SecretRef(.openai)
            let unlocked = await Platform.secretsFor(environment)
            #expect(unlocked.protection == .osKeyring && unlocked.keyringRefusal == nil)
            #expect(await unlocked.presence(of: ref) == .none, "unlocked and empty: none")
            try await unlocked.secrets.set(ref, "sk-in-the-keyring")
            #expect(await unlocked.presence(of: ref) == .stored)

            try await keyring.lockDefaultCollection()
            // Locked since the probe: the same backend now cannot tell.
            guard case .unknown(let since) = await unlocked.presence(of: ref) else {
                Issue.record("a keyring locked mid-run answered as if it could tell")
                return
            }
            #expect(since.code == .locked)

            // Locked at the probe: still the keyring, with the refusal, never process memory.
            let locked = await Platform.secretsFor(environment)
            #expect(locked.protection == .osKeyring)
            #expect(locked.keyringRefusal?.code == .locked)
            #expect(locked.keyringUnavailable == nil && locked.environmentKeys.isEmpty)
            guard case .unknown(let error) = await locked.presence(of: ref) else {
                Issue.record("a locked keyring answered as if it could tell")
                return
            }
            #expect(error.code == .locked)
            #expect(locked.warning?.contains("the keyring cannot be used now") == true)
            #expect(locked.keyStore.protection == .osKeyring, "the data key is not sought in memory either")
        }
    }

    @Test("with a bus but no Secret Service, keys are process memory from the environment, and others cannot be told")
    func noServiceIsProcessMemory() async throws {
        let directory = try TemporaryDirectory()
        let bus = try await PrivateBus(in: directory)
        defer { bus.stop() }
        let backend = await Platform.secretsFor(
            LaunchEnvironment(["DBUS_SESSION_BUS_ADDRESS": bus.address, "OPENAI_API_KEY": "sk-from-the-environment"]))
        #expect(backend.protection == .processMemory)
        #expect(backend.keyringUnavailable?.code == .noService)
        #expect(await backend.presence(of: SecretRef(.openai)) == .stored, "the environment's key, for this run")
        guard case .unknown(let error) = await backend.presence(of: SecretRef(.anthropic)) else {
            Issue.record("no keyring, and no key in the environment, was told as no key")
            return
        }
        #expect(error.code == .noService)
    }
}
