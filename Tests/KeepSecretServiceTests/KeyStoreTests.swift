import Foundation
import KeepConformance
import KeepPorts
import KeepSecretService
import KeepTestSupport
import Testing

extension SecretServiceTests {
    /// `SecretServiceKeyStore`: the app's own keys, beside the user's secrets and never
    /// mistaken for them.
    @Suite("App keys on the Secret Service")
    struct AppKeys {
        @Test("loading a key never stored is nil")
        func aKeyNeverStoredIsNil() async throws {
            let keys = try SecretServiceKeyStore(application: uniqueApplication())
            #expect(try await keys.load(KeyName("never-stored")) == nil)
        }

        @Test("a stored key reads back exactly, a second store replaces it, and delete removes it")
        func storeLoadReplaceDelete() async throws {
            let keys = try SecretServiceKeyStore(application: uniqueApplication())
            let name = try KeyName("data-key")
            var generator = SystemRandomNumberGenerator()
            let first = [0, 0xff, 0] + (0..<29).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let second = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }

            try await keys.store(name, first)
            #expect(try await keys.load(name) == first)
            try await keys.store(name, second)
            #expect(try await keys.load(name) == second)
            try await keys.store(name, [])
            #expect(try await keys.load(name) == [], "an empty key is a stored value, not an absence")
            try await keys.delete(name)
            #expect(try await keys.load(name) == nil)
        }

        @Test("deleting an absent key succeeds")
        func deletingAnAbsentKeySucceeds() async throws {
            let keys = try SecretServiceKeyStore(application: uniqueApplication())
            let name = try KeyName("absent")
            try await keys.delete(name)
            try await keys.store(name, [1])
            try await keys.delete(name)
            try await keys.delete(name)
            #expect(try await keys.load(name) == nil)
        }

        @Test("a key is never found by a secret search, nor a secret by a key search")
        func keysAndSecretsNeverMeet() async throws {
            let application = uniqueApplication()
            let keys = try SecretServiceKeyStore(application: application)
            let secrets = try SecretServiceSecrets(application: application)
            let name = try KeyName("work")
            try await keys.store(name, [7, 7, 7])
            for slot in SecretSlot.allCases {
                #expect(
                    try await secrets.has(SecretRef(slot, account: "work")) == false, "a \(slot) search found the key")
            }
            let ref = SecretRef(.custom, account: "work")
            try await secrets.set(ref, "sk-work")
            #expect(try await keys.load(name) == [7, 7, 7], "the secret replaced the key")
            try await keys.delete(name)
            #expect(try await secrets.get(ref) == "sk-work", "deleting the key deleted the secret")
            try await keys.store(name, [8])
            try await secrets.delete(ref)
            #expect(try await keys.load(name) == [8], "deleting the secret deleted the key")
            try await keys.delete(name)
        }

        @Test(
            "an app key is an item with app and key attributes and no slot",
            .enabled(if: SecretTool.isInstalled, "secret-tool (Debian package libsecret-tools) is not installed"))
        func anAppKeyHasNoSlot() async throws {
            let application = uniqueApplication()
            let keys = try SecretServiceKeyStore(application: application)
            let name = try KeyName("data-key")
            try await keys.store(name, [1, 2, 3])
            let items = try await SecretTool(environment: nil).search(["app": application])
            try await keys.delete(name)
            #expect(items.count == 1)
            #expect(items.attributes["app"] == [application])
            #expect(items.attributes["key"] == ["data-key"])
            #expect(items.attributes["slot"] == nil)
            #expect(items.attributes["account"] == nil)
        }
    }
}
