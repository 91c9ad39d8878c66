import KeepConformance
import KeepFileStore
import KeepPorts
import Testing

@Suite("The data root")
struct DataRootTests {
    /// The cache and temp directories every case also sets, which the root must never be under.
    static let distractions = ["XDG_CACHE_HOME": "/c/cache", "TMPDIR": "/t/tmp", "TEMP": "/t/temp", "TMP": "/t/t"]

    @Test(
        "the store resolves its root under the app data directory",
        arguments: [
            (["XDG_DATA_HOME": "/d/data", "HOME": "/h/home"], "/d/data/keep"),
            (["XDG_DATA_HOME": "/d/data"], "/d/data/keep"),
            (["HOME": "/h/home"], "/h/home/.local/share/keep"),
            (["XDG_DATA_HOME": "relative/data", "HOME": "/h/home"], "/h/home/.local/share/keep"),
            (["XDG_DATA_HOME": "", "HOME": "/h/home"], "/h/home/.local/share/keep"),
            (["XDG_DATA_HOME": "/d/data/", "HOME": "/h/home"], "/d/data/keep"),
            (["HOME": "/h/home//"], "/h/home/.local/share/keep"),
            (["HOME": "/"], "/.local/share/keep"),
        ])
    func theRootIsUnderTheAppDataDirectory(_ variables: [String: String], _ expected: String) async throws {
        let environment = variables.merging(Self.distractions) { chosen, _ in chosen }
        let root = try DataRoot.resolve(environment: environment)
        #expect(root == expected)
        for refused in Self.distractions.values {
            #expect(!root.hasPrefix(refused), "the root \(root) is under \(refused)")
        }
        #expect(!root.contains("/.cache"))
    }

    @Test(
        "with no usable data home the resolver refuses rather than guess",
        arguments: [
            [:], distractions, ["XDG_DATA_HOME": "data", "HOME": "home"], ["HOME": ""], ["XDG_DATA_HOME": "~/data"],
            ["XDG_CONFIG_HOME": "/x/config", "USER": "someone"],
        ])
    func refusesWithoutADataHome(_ environment: [String: String]) {
        let error = #expect(throws: StorageError.self) { try DataRoot.resolve(environment: environment) }
        #expect(error?.code == .unavailable)
        #expect(error?.description.contains("XDG_DATA_HOME") == true && error?.description.contains("HOME") == true)
    }

    @Test("a store opened on the resolved root keeps its values under it")
    func aStoreOnTheResolvedRoot() async throws {
        let directory = try TemporaryDirectory()
        let root = try DataRoot.resolve(environment: ["XDG_DATA_HOME": directory.appending("data")])
        try await FileStore(root: root).write(StorageKey(.chats, "c1"), "v")
        #expect(RawDisk.bytes(directory.appending("data/keep/store/chats/c1")) == Array("v".utf8))
    }
}
