import Foundation
import KeepConformance
import KeepPorts
import KeepSecretService
import KeepTestSupport
import Testing

/// Everything that talks to a Secret Service, one test at a time: the shared session keyring
/// (from `scripts/with-keyring`) and the private keyrings some tests start. Off the scripts'
/// private bus every one of them refuses to run, saying why: a desktop's login keyring is
/// never written.
@Suite("The Secret Service adapters", .serialized, .onTheScriptsKeyring)
struct SecretServiceTests {
    @Test("the Secret Service honours the secrets contract", arguments: SecretsContract.cases)
    func secretServiceHonoursTheContract(_ rule: SecretsContract.Case) async throws {
        try await rule.check { try SecretServiceSecrets() }
    }

    @Test("MemorySecrets honours the secrets contract", arguments: SecretsContract.cases)
    func memorySecretsHonoursTheContract(_ rule: SecretsContract.Case) async throws {
        try await rule.check { MemorySecrets() }
    }

    @Test("the Secret Service is reported as an OS keyring, not as hardware")
    func protectionIsAnOSKeyring() throws {
        let protections = [try SecretServiceSecrets().protection, try SecretServiceKeyStore().protection]
        for protection in protections {
            #expect(protection == .osKeyring)
            #expect(!protection.isHardwareBacked)
            #expect(protection.persists)
        }
    }

    @Test(
        "an application name outside the allowed set is refused",
        arguments: ["", "has space", "slash/in", "ключ", "nul\u{0}in", String(repeating: "a", count: 65)].map(Text.init)
    )
    func badApplicationNameIsRefused(_ name: Text) async {
        await expectSecretsError(.invalidRef, "SecretServiceSecrets(application: \(name))") {
            () throws(SecretsError) in _ = try SecretServiceSecrets(application: name.value)
        }
        await expectSecretsError(.invalidRef, "SecretServiceKeyStore(application: \(name))") {
            () throws(SecretsError) in _ = try SecretServiceKeyStore(application: name.value)
        }
    }

    @Test(
        "an application name of letters, digits, dots, dashes and underscores names its own items",
        arguments: ["keep", "com.example.My_App-2", String(repeating: "a", count: 64)])
    func goodApplicationNameIsUsed(_ name: String) async throws {
        let mine = try SecretServiceSecrets(application: name)
        let other = try SecretServiceSecrets(application: "keep-test-other")
        let ref = SecretRef(.openai, account: "app-\(UUID().uuidString)")
        try await mine.set(ref, "sk-for-\(name.prefix(8))")
        #expect(try await mine.get(ref) == "sk-for-\(name.prefix(8))")
        #expect(try await other.has(ref) == false, "another application sees the item")
        try await mine.delete(ref)
    }
}

/// A name for a test's own items on the shared keyring, so tests never meet.
func uniqueApplication() -> String {
    "keep-test-\(UUID().uuidString.prefix(8).lowercased())"
}
