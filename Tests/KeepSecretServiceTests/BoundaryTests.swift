import Foundation
import KeepConformance
import KeepPorts
import KeepTestSupport
import Testing

@testable import KeepSecretService

extension SecretServiceTests {
    /// What may cross into the keyring, and what never does: names outside the closed set,
    /// a value on a presence check, a value onto disk.
    @Suite("What reaches the keyring")
    struct WhatReachesTheKeyring {
        @Test(
            "a slot outside the closed set is refused rather than named",
            .enabled(if: SecretTool.isInstalled, "secret-tool (Debian package libsecret-tools) is not installed"),
            arguments: ["aws", "OpenAI", "openai ", "", "openai\u{0}x", "../openai", "default"].map(Text.init))
        func aSlotOutsideTheSetIsRefused(_ slot: Text) async throws {
            let application = uniqueApplication()
            // A ref cannot hold such a slot, so build the attributes as a bug or a forged
            // value would, and hand them straight to the code that calls C.
            let query = ItemQuery(
                schema: .secret, attributes: ["app": application, "slot": slot.value, "account": "work"])
            let client = SecretServiceClient(bus: .session)
            await expectSecretsError(.invalidRef, "write") { () throws(SecretsError) in
                try await client.write(query, label: "forged", .text("sk-forged"), operation: "set", ref: nil)
            }
            await expectSecretsError(.invalidRef, "has") { () throws(SecretsError) in
                _ = try await client.has(query, operation: "has", ref: nil)
            }
            await expectSecretsError(.invalidRef, "read") { () throws(SecretsError) in
                _ = try await client.read(query, operation: "get", ref: nil)
            }
            await expectSecretsError(.invalidRef, "remove") { () throws(SecretsError) in
                try await client.remove(query, operation: "delete", ref: nil)
            }
            let named = try await SecretTool(environment: nil).search(["app": application])
            #expect(named.count == 0, "the keyring holds items named by a slot outside the set: \(named)")
        }

        @Test(
            "every slot of the closed set names its own item",
            .enabled(if: SecretTool.isInstalled, "secret-tool (Debian package libsecret-tools) is not installed"),
            arguments: SecretSlot.allCases)
        func everySlotNamesItsOwnItem(_ slot: SecretSlot) async throws {
            let application = uniqueApplication()
            let secrets = try SecretServiceSecrets(application: application)
            let ref = SecretRef(slot, account: "work")
            try await secrets.set(ref, "sk-\(slot.rawValue)")
            let items = try await SecretTool(environment: nil).search(["app": application])
            try await secrets.delete(ref)
            #expect(items.count == 1)
            #expect(items.attributes["slot"] == [slot.rawValue])
            #expect(items.attributes["account"] == ["work"])
        }

        @Test("an account holding a NUL is refused rather than cut short")
        func anAccountWithANulIsRefused() async throws {
            let secrets = try SecretServiceSecrets(application: uniqueApplication())
            let work = SecretRef(.openai, account: "work")
            let forged = SecretRef(.openai, account: "work\u{0}evil")
            try await secrets.set(work, "sk-work")
            await expectSecretsError(.invalidRef, "set") { () throws(SecretsError) in
                try await secrets.set(forged, "sk-evil")
            }
            await expectSecretsError(.invalidRef, "get") { () throws(SecretsError) in _ = try await secrets.get(forged)
            }
            await expectSecretsError(.invalidRef, "has") { () throws(SecretsError) in _ = try await secrets.has(forged)
            }
            await expectSecretsError(.invalidRef, "delete") { () throws(SecretsError) in
                try await secrets.delete(forged)
            }
            #expect(try await secrets.get(work) == "sk-work", "the account the NUL would have cut it to was touched")
            try await secrets.delete(work)
        }

        @Test(
            "an account of any other text names its own item",
            arguments: ["with space", "ünïcödé 🔑", "line\nbreak", "slash/and\\back", "\"quoted\"", "", "Work"].map(
                Text.init))
        func anyOtherAccountNamesItsOwnItem(_ account: Text) async throws {
            let secrets = try SecretServiceSecrets(application: uniqueApplication())
            let ref = SecretRef(.custom, account: account.value)
            let sibling = SecretRef(.custom, account: "work")
            try await secrets.set(ref, "sk-odd-account")
            #expect(try await secrets.get(ref) == "sk-odd-account")
            #expect(try await secrets.has(sibling) == false)
            try await secrets.delete(ref)
            #expect(try await secrets.has(ref) == false)
        }

        @Test("asking whether a key is configured never loads the secret")
        func hasNeverLoadsTheSecret() async throws {
            try await PrivateKeyring.with { keyring in
                let secrets = try SecretServiceSecrets(busAddress: keyring.bus.address)
                let ref = SecretRef(.openai)
                try await secrets.set(ref, "sk-configured")
                try await BusMonitor.with(keyring.bus) { monitor in
                    var configured: Bool?
                    let asking = try await monitor.traffic { configured = try await secrets.has(ref) }
                    #expect(configured == true)
                    #expect(asking.contains("member=SearchItems"), "the monitor saw no search: \(asking)")
                    #expect(!asking.contains("member=GetSecret"), "has() fetched the secret over D-Bus: \(asking)")

                    // The same monitor does see a read fetch it, so its silence above means something.
                    var value: String?
                    let reading = try await monitor.traffic { value = try await secrets.get(ref) }
                    #expect(value == "sk-configured")
                    #expect(reading.contains("member=GetSecret"), "the monitor missed get() fetching the secret")
                }
            }
        }

        @Test("a secret never reaches a file")
        func aSecretNeverReachesAFile() async throws {
            try await PrivateKeyring.with { keyring in
                let dataRoot = try TemporaryDirectory(prefix: "keep-data")
                // The keyring's home (and its keyring files) and the data root both live
                // in the temp directory; name them anyway, wherever TMPDIR points.
                let roots = [FileManager.default.temporaryDirectory.path, dataRoot.path, keyring.home]

                // The scan must be able to see: a marker planted under the data root is found.
                let marker = "keep-marker-\(UUID().uuidString)"
                let planted = dataRoot.appending("nested/planted")
                try FileManager.default.createDirectory(
                    atPath: dataRoot.appending("nested"), withIntermediateDirectories: false)
                try Data("before \(marker) after".utf8).write(to: URL(fileURLWithPath: planted))
                #expect(Set(try await RawFileScan.files(under: roots, containing: marker)) == [planted])

                let secrets = try SecretServiceSecrets(busAddress: keyring.bus.address)
                let ref = SecretRef(.anthropic, account: "disk")
                let value = "sk-never-on-disk-\(UUID().uuidString)"
                try await secrets.set(ref, value)
                #expect(try await secrets.get(ref) == value)
                #expect(try await secrets.has(ref))
                let keyrings = keyring.home + "/.local/share/keyrings"
                let files = try FileManager.default.contentsOfDirectory(atPath: keyrings)
                #expect(files.contains("login.keyring"), "the keyring kept nothing on disk to scan: \(files)")
                #expect(try await RawFileScan.files(under: roots, containing: value).isEmpty, "while stored")

                try await secrets.delete(ref)
                #expect(try await RawFileScan.files(under: roots, containing: value).isEmpty, "after delete")
            }
        }
    }
}
