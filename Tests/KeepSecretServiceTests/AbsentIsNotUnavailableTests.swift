import Foundation
import KeepConformance
import KeepPorts
import KeepSecretService
import KeepTestSupport
import Testing

extension SecretServiceTests {
    /// libsecret answers "nothing" both for a secret never set and for a keyring it cannot
    /// reach; the adapters tell the two apart, each unreachable case by its own code.
    @Suite("Absent is not unavailable")
    struct AbsentIsNotUnavailable {
        @Test("a locked keyring is an error, not an absent secret")
        func lockedKeyringIsAnError() async throws {
            try await PrivateKeyring.with { keyring in
                let secrets = try SecretServiceSecrets(busAddress: keyring.bus.address)
                let keys = try SecretServiceKeyStore(busAddress: keyring.bus.address)
                let stored = SecretRef(.openai, account: "work")
                let key = try KeyName("data")
                try await secrets.set(stored, "sk-locked-away")
                try await keys.store(key, [1, 2, 3])
                #expect(try await secrets.get(stored) == "sk-locked-away", "the secret is there before the lock")

                try await keyring.lockDefaultCollection()
                try #require(try await keyring.defaultCollectionIsLocked())
                let failures = await everyOperationFails(
                    .locked, secrets, keys, stored: stored, never: SecretRef(.openai, account: "never-set"), key: key)
                for error in failures {
                    #expect(error.description.contains("locked"), "\(error)")
                    #expect(!error.description.contains("sk-"), "an error shows a value: \(error)")
                }
                #expect(
                    try await keyring.defaultCollectionIsLocked(), "the keyring was unlocked behind the user's back")
            }
        }

        @Test("no Secret Service is an error, not an absent secret")
        func noServiceIsAnError() async throws {
            let directory = try TemporaryDirectory()
            let bus = try await PrivateBus(in: directory)
            defer { bus.stop() }
            let secrets = try SecretServiceSecrets(busAddress: bus.address)
            let keys = try SecretServiceKeyStore(busAddress: bus.address)
            let failures = await everyOperationFails(
                .noService, secrets, keys, stored: SecretRef(.anthropic), never: SecretRef(.google),
                key: try KeyName("data"))
            #expect(
                failures.first?.description.hasPrefix(
                    "get of anthropic/\"default\" failed: no Secret Service answers on the bus at \(bus.address)")
                    == true,
                "\(failures.first.map(String.init(describing:)) ?? "no error")")
            for error in failures {
                #expect(error.description.contains("gnome-keyring-daemon --components=secrets --unlock"), "\(error)")
            }
        }

        @Test("a keyring that stops and starts again is found by the same adapter")
        func aRestartedKeyringIsFound() async throws {
            let directory = try TemporaryDirectory()
            let bus = try await PrivateBus(in: directory)
            defer { bus.stop() }
            let secrets = try SecretServiceSecrets(busAddress: bus.address)
            let ref = SecretRef(.openrouter)
            await expectSecretsError(.noService, "has() before any keyring starts") { () throws(SecretsError) in
                _ = try await secrets.has(ref)
            }
            try await PrivateKeyring.with(on: bus) { _ in
                try await secrets.set(ref, "sk-first-keyring")
                #expect(try await secrets.get(ref) == "sk-first-keyring")
            }
            await expectSecretsError(.noService, "has() once the keyring stopped") { () throws(SecretsError) in
                _ = try await secrets.has(ref)
            }
            try await PrivateKeyring.with(on: bus) { _ in
                #expect(try await secrets.has(ref) == false, "a fresh keyring holds the old one's secret")
                try await secrets.set(ref, "sk-second-keyring")
                #expect(try await secrets.get(ref) == "sk-second-keyring")
            }
        }

        @Test(
            "no session bus is an error, not an absent secret",
            arguments: ["unix:path=/nonexistent/keep-no-bus", "not a D-Bus address"])
        func noSessionBusIsAnError(_ address: String) async throws {
            let secrets = try SecretServiceSecrets(busAddress: address)
            let keys = try SecretServiceKeyStore(busAddress: address)
            await everyOperationFails(
                .noSessionBus, secrets, keys, stored: SecretRef(.custom), never: SecretRef(.openai),
                key: try KeyName("data"))
        }

        @Test("a Secret Service without a default keyring is an error, not an absent secret")
        func noDefaultCollectionIsAnError() async throws {
            try await PrivateKeyring.with(unlocked: false) { keyring in
                #expect(try await keyring.defaultCollectionPath() == "/", "the keyring made a default collection")
                let secrets = try SecretServiceSecrets(busAddress: keyring.bus.address)
                let keys = try SecretServiceKeyStore(busAddress: keyring.bus.address)
                await everyOperationFails(
                    .noDefaultCollection, secrets, keys, stored: SecretRef(.openai), never: SecretRef(.google),
                    key: try KeyName("data"))
            }
        }

        /// Checks that every operation of both adapters throws `code`, for a secret that
        /// was stored, one that never was, and a key; returns the errors.
        @discardableResult
        private func everyOperationFails(
            _ code: SecretsError.Code, _ secrets: SecretServiceSecrets, _ keys: SecretServiceKeyStore,
            stored: SecretRef, never: SecretRef, key: KeyName, sourceLocation: SourceLocation = #_sourceLocation
        ) async -> [SecretsError] {
            var errors: [SecretsError?] = []
            for ref in [stored, never] {
                errors.append(
                    await expectSecretsError(code, "get of \(ref)", sourceLocation: sourceLocation) {
                        () throws(SecretsError) in _ = try await secrets.get(ref)
                    })
                errors.append(
                    await expectSecretsError(code, "has of \(ref)", sourceLocation: sourceLocation) {
                        () throws(SecretsError) in _ = try await secrets.has(ref)
                    })
                errors.append(
                    await expectSecretsError(code, "set of \(ref)", sourceLocation: sourceLocation) {
                        () throws(SecretsError) in try await secrets.set(ref, "sk-new-value")
                    })
                errors.append(
                    await expectSecretsError(code, "delete of \(ref)", sourceLocation: sourceLocation) {
                        () throws(SecretsError) in try await secrets.delete(ref)
                    })
            }
            errors.append(
                await expectSecretsError(code, "checkAvailable", sourceLocation: sourceLocation) {
                    () throws(SecretsError) in try await secrets.checkAvailable()
                })
            errors.append(
                await expectSecretsError(code, "load of \(key)", sourceLocation: sourceLocation) {
                    () throws(SecretsError) in _ = try await keys.load(key)
                })
            errors.append(
                await expectSecretsError(code, "store of \(key)", sourceLocation: sourceLocation) {
                    () throws(SecretsError) in try await keys.store(key, [9, 9])
                })
            errors.append(
                await expectSecretsError(code, "delete of \(key)", sourceLocation: sourceLocation) {
                    () throws(SecretsError) in try await keys.delete(key)
                })
            return errors.compactMap { $0 }
        }
    }
}
