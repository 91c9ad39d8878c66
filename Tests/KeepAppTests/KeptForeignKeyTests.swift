import Foundation
import KeepConformance
import KeepPorts
import KeepSecretService
import KeepTestSupport
import Testing

@testable import KeepApp
@testable import KeepKeptData

/// Kept data on a real keyring of the test's own, beside another application's
/// `kept-data-key` item (keep's attributes and one more): it is never taken for keep's
/// key, never deleted by a key-loss recovery, and never makes keep clear its rows.
@Suite(
    "Kept data beside another application's data-key item",
    .enabled(
        if: ToolRun.isInstalled("gnome-keyring-daemon") && ToolRun.isInstalled("dbus-daemon")
            && SecretTool.isInstalled,
        "needs gnome-keyring-daemon, dbus-daemon and secret-tool (scripts/lib/packages.sh installs them)"))
struct KeptForeignKeyTests {
    private let server = ScriptedServer(.models(["a", "b"]))
    private let address = "http://127.0.0.1:8080/v1"
    private let theirs: KeyValuePairs = ["app": "keep", "key": "kept-data-key", "owner": "otherapp"]

    @Test("another application's data-key item never makes keep clear kept data, and survives a key-loss recovery")
    func foreignDataKeyIsLeftAlone() async throws {
        try await PrivateKeyring.with { keyring in
            let tool = SecretTool(environment: keyring.bus.environment())
            let keys = try SecretServiceKeyStore(busAddress: keyring.bus.address)
            let directory = try TemporaryDirectory()
            let root = directory.appending("keep")
            let first = try await KeptData.open(root: root, keys: keys, http: server, warn: { _ in })
            #expect(first.status == .kept(path: root + "/kept.sqlite"))
            _ = try await first.engines.refresh(try ServerAddress(address), apiKey: nil)

            // Planted after keep's key exists, so a search could list it first.
            try await tool.store(label: "other", theirs, value: "not keep's data key")
            #expect(try await tool.search(["app": "keep", "key": "kept-data-key"]).count == 2, "both are found")
            let notices = KeptLaunchTests.Told()
            let second = try await KeptData.open(root: root, keys: keys, http: server, warn: notices.warn)
            #expect(second.notice == nil, "kept data was cleared: \(notices.all)")
            #expect(try await second.engines.kept(try ServerAddress(address)).models?.value.ids == ["a", "b"])

            // A key loss (keep's own item gone): the recovery clears keep's rows and makes a
            // new key, and the other application's item is still there, unchanged.
            try await keys.delete(try KeyName("kept-data-key"))
            #expect(try await tool.lookup(theirs) == "not keep's data key", "keep's delete took theirs")
            let third = try await KeptData.open(root: root, keys: keys, http: server, warn: { _ in })
            #expect(third.notice != nil, "the check sees a key loss when there is one")
            #expect(try await tool.lookup(theirs) == "not keep's data key", "the recovery took theirs")
            #expect(
                try await tool.search(["app": "keep", "key": "kept-data-key"]).count == 2, "keep's new key and theirs")
        }
    }
}
