import Foundation
import KeepConformance
import KeepPorts
import KeepSecretService
import KeepTestSupport
import Testing

extension SecretServiceTests {
    /// `secret-tool`, libsecret's own client, sees exactly what keep stores under the
    /// documented attributes, and keep reads what it stores.
    @Suite(
        "secret-tool and keep share the keyring",
        .enabled(if: SecretTool.isInstalled, "secret-tool (Debian package libsecret-tools) is not installed"))
    struct SecretToolInterop {
        let tool = SecretTool(environment: nil)

        @Test("a secret stored by keep is found by secret-tool")
        func keepsSecretIsFoundBySecretTool() async throws {
            let secrets = try SecretServiceSecrets()
            let account = "interop-\(UUID().uuidString)"
            let ref = SecretRef(.openai, account: account)
            try await secrets.set(ref, "sk-from-keep")
            let everything = try await tool.search(["app": "keep"])
            let mine = try await tool.search(["app": "keep", "slot": "openai", "account": account])
            let value = try await tool.lookup(["app": "keep", "slot": "openai", "account": account])
            try await secrets.delete(ref)

            #expect(
                everything.attributes["account"]?.contains(account) == true,
                "`secret-tool search --all app keep` misses it")
            #expect(mine.count == 1)
            #expect(mine.attributes["app"] == ["keep"])
            #expect(mine.attributes["slot"] == ["openai"])
            #expect(mine.attributes["account"] == [account])
            #expect(value == "sk-from-keep")
        }

        @Test("a secret stored by secret-tool with keep's attributes is read by keep")
        func secretToolsSecretIsReadByKeep() async throws {
            let application = uniqueApplication()
            let secrets = try SecretServiceSecrets(application: application)
            let ref = SecretRef(.anthropic, account: "work")
            let attributes: KeyValuePairs = ["app": application, "slot": "anthropic", "account": "work"]
            try await tool.store(label: "typed at a shell", attributes, value: "sk-from-secret-tool")
            #expect(try await secrets.has(ref))
            #expect(try await secrets.get(ref) == "sk-from-secret-tool")

            try await secrets.set(ref, "sk-replaced-by-keep")
            #expect(try await tool.search(attributes).count == 1, "keep added a second item beside secret-tool's")
            #expect(try await tool.lookup(attributes) == "sk-replaced-by-keep")

            try await secrets.delete(ref)
            #expect(try await tool.lookup(attributes) == nil)
        }

        @Test("setting a secret again replaces its item, never adds one")
        func settingAgainReplaces() async throws {
            let application = uniqueApplication()
            let secrets = try SecretServiceSecrets(application: application)
            let ref = SecretRef(.google, account: "work")
            for value in ["sk-first", "sk-second", "sk-third"] {
                try await secrets.set(ref, value)
            }
            let items = try await tool.search(["app": application])
            let value = try await tool.lookup(["app": application, "slot": "google", "account": "work"])
            try await secrets.delete(ref)
            #expect(items.count == 1)
            #expect(value == "sk-third")
        }
    }
}
