import Foundation
import KeepConformance
import KeepPorts
import KeepSecretService
import KeepTestSupport
import Testing

extension SecretServiceTests {
    /// Items are keep's only by keep's schema and exactly keep's attributes. The Secret
    /// Service matches a search on a subset, so another application's item that shares
    /// keep's attributes and has one more is found by the search: each test first proves
    /// the planted item is there and found by that search, then that keep never reads,
    /// replaces or deletes it.
    @Suite(
        "Only keep's own items",
        .enabled(if: SecretTool.isInstalled, "secret-tool (Debian package libsecret-tools) is not installed"))
    struct OnlyKeepsItems {
        /// Another application's item beside keep's: keep's attributes and one more, or
        /// keep's attributes under a schema name that is not keep's.
        struct Foreign: Sendable, CustomTestStringConvertible {
            let extra: [(String, String)]
            var testDescription: String { extra.map { "\($0.0) \($0.1)" }.joined(separator: " ") }
        }

        static let foreigners = [
            Foreign(extra: [("owner", "otherapp")]),
            Foreign(extra: [("xdg:schema", "org.example.Other")]),
        ]

        /// keep's attributes for `openai`/`default`.
        static let keepsAttributes = ["app": "keep", "slot": "openai", "account": "default"]

        /// Runs `body` on a keyring of its own holding `foreign`'s item (value
        /// `sk-other-app`) under keep's attributes and its own, once the search keep makes
        /// (a subset match) is seen to find it; `body` gets secret-tool, keep's adapter and
        /// the planted item's attributes.
        private func withPlanted(
            _ foreign: Foreign,
            _ body: (SecretTool, SecretServiceSecrets, [(key: String, value: String)]) async throws -> Void
        ) async throws {
            try await PrivateKeyring.with { keyring in
                let tool = SecretTool(environment: keyring.bus.environment())
                let theirs = pairs(Self.keepsAttributes, foreign.extra)
                try await tool.store(label: "other", theirs, value: "sk-other-app")
                #expect(try await tool.search(pairs(Self.keepsAttributes)).count == 1, "the planted item is not found")
                try await body(tool, try SecretServiceSecrets(busAddress: keyring.bus.address), theirs)
            }
        }

        @Test("another application's item sharing keep's attributes is never read as keep's", arguments: foreigners)
        func foreignItemIsNeverRead(_ foreign: Foreign) async throws {
            try await withPlanted(foreign) { _, secrets, _ in
                let ref = SecretRef(.openai)
                #expect(try await secrets.has(ref) == false)
                #expect(try await secrets.get(ref) == nil)

                // Keep's own item beside it is the one read. (Stored by keep: `secret-tool store`
                // replaces an item whose attributes merely include the ones it is given.)
                try await secrets.set(ref, "sk-keeps-own")
                #expect(try await secrets.has(ref))
                #expect(try await secrets.get(ref) == "sk-keeps-own")
            }
        }

        @Test("keep key set and rm never replace or delete another application's item", arguments: foreigners)
        func foreignItemIsNeverReplacedOrDeleted(_ foreign: Foreign) async throws {
            try await withPlanted(foreign) { tool, secrets, theirs in
                let ref = SecretRef(.openai)
                let attributes = Self.keepsAttributes
                try await secrets.set(ref, "sk-first")
                try await secrets.set(ref, "sk-second")
                #expect(try await tool.search(pairs(attributes)).count == 2, "keep's item and the other one")
                #expect(try await tool.lookup(theirs) == "sk-other-app", "the other item's value was replaced")
                #expect(try await secrets.get(ref) == "sk-second")

                try await secrets.delete(ref)
                #expect(try await secrets.has(ref) == false, "keep's own item is deleted")
                #expect(try await tool.search(pairs(attributes)).count == 1)
                #expect(try await tool.lookup(theirs) == "sk-other-app", "the other item was deleted")
            }
        }

        @Test("a data-key item of another application is never loaded, replaced or deleted", arguments: foreigners)
        func foreignDataKeyIsLeftAlone(_ foreign: Foreign) async throws {
            try await PrivateKeyring.with { keyring in
                let tool = SecretTool(environment: keyring.bus.environment())
                let keys = try SecretServiceKeyStore(busAddress: keyring.bus.address)
                let name = try KeyName("kept-data-key")
                let attributes = ["app": "keep", "key": "kept-data-key"]
                let theirs = pairs(attributes, foreign.extra)
                try await tool.store(label: "other", theirs, value: "not keep's key")
                #expect(try await tool.search(pairs(attributes)).count == 1, "the planted item is not found")

                #expect(try await keys.load(name) == nil, "another application's item was loaded as keep's key")
                try await keys.store(name, [1, 2, 3])
                #expect(try await keys.load(name) == [1, 2, 3])
                try await keys.delete(name)
                #expect(try await keys.load(name) == nil)
                #expect(try await tool.lookup(theirs) == "not keep's key", "the other item was replaced or deleted")
            }
        }

        @Test("a key stored by secret-tool with exactly keep's attributes is keep's, and keep replaces it in place")
        func secretToolItemWithKeepsAttributesIsKeeps() async throws {
            try await PrivateKeyring.with { keyring in
                let tool = SecretTool(environment: keyring.bus.environment())
                let secrets = try SecretServiceSecrets(busAddress: keyring.bus.address)
                let ref = SecretRef(.anthropic, account: "work")
                let attributes = pairs(["app": "keep", "slot": "anthropic", "account": "work"])
                try await tool.store(label: "typed at a shell", attributes, value: "sk-from-a-shell\n")
                // The adapter hands back what is stored; trimming is keep's reading rule (KeyText).
                #expect(try await secrets.get(ref) == "sk-from-a-shell\n")
                try await secrets.set(ref, "sk-from-keep")
                #expect(try await tool.search(attributes).count == 1, "keep left secret-tool's item beside its own")
                #expect(try await tool.lookup(attributes) == "sk-from-keep")
            }
        }

        @Test("the data key is sent to the keyring with a binary content type, a user's key as text")
        func contentTypes() async throws {
            try await PrivateKeyring.with { keyring in
                let keys = try SecretServiceKeyStore(busAddress: keyring.bus.address)
                let secrets = try SecretServiceSecrets(busAddress: keyring.bus.address)
                // Connected first, so the traffic below is the stores alone.
                try await keys.checkAvailable()
                try await secrets.checkAvailable()
                // gnome-keyring answers every read as text/plain, so the witness is the
                // CreateItem call itself, as it crossed the bus.
                try await BusMonitor.with(keyring.bus) { monitor in
                    let keyTraffic = try await monitor.traffic {
                        try await keys.store(try KeyName("kept-data-key"), [0, 255, 10, 13])
                    }
                    let textTraffic = try await monitor.traffic {
                        try await secrets.set(SecretRef(.openai), "sk-text")
                    }
                    #expect(keyTraffic.contains("member=CreateItem"), "the monitor saw the store")
                    #expect(keyTraffic.contains("string \"application/octet-stream\""), "\(keyTraffic)")
                    #expect(!keyTraffic.contains("string \"text/plain\""))
                    #expect(textTraffic.contains("string \"text/plain\""), "\(textTraffic)")
                }
            }
        }
    }
}

/// `attributes` and then `extra`, as secret-tool takes them.
private func pairs(
    _ attributes: [String: String], _ extra: [(String, String)] = []
) -> [(key: String, value: String)] {
    attributes.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        + extra.map { (key: $0.0, value: $0.1) }
}
