import KeepTestSupport
import Testing

/// The guard every test that stores a secret runs behind: only the scripts' private bus.
@Suite("Tests never touch a real keyring")
struct ScriptsKeyringTests {
    static let desktop = "unix:path=/run/user/1000/bus"
    static let scripts = "unix:path=/tmp/dbus-Xk3QpZ,guid=0123456789abcdef0123456789abcdef"

    @Test(
        "a session bus that is not the one the scripts started is refused, however it is set",
        arguments: [
            [:], ["DBUS_SESSION_BUS_ADDRESS": desktop],
            ["DBUS_SESSION_BUS_ADDRESS": desktop, ScriptsKeyring.markerVariable: scripts],
            ["DBUS_SESSION_BUS_ADDRESS": "", ScriptsKeyring.markerVariable: ""],
            [ScriptsKeyring.markerVariable: scripts],
        ])
    func anotherBusIsRefused(environment: [String: String]) {
        #expect(ScriptsKeyring.busAddress(in: environment) == nil)
    }

    @Test("the bus the scripts started, and said they started, is the one the tests use")
    func theScriptsBusIsUsed() {
        let environment = ["DBUS_SESSION_BUS_ADDRESS": Self.scripts, ScriptsKeyring.markerVariable: Self.scripts]
        #expect(ScriptsKeyring.busAddress(in: environment) == Self.scripts)
    }

    @Test("the refusal is one line that says to use scripts/test or scripts/with-keyring")
    func refusalSaysWhatToDo() {
        let line = ScriptsKeyring.refusal
        #expect(!line.contains("\n"))
        #expect(line.contains("scripts/test") && line.contains("scripts/with-keyring"))
    }
}
