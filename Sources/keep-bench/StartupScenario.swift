import Foundation
import KeepCore
import KeepFileStore

/// `keep chats --json` over 10,000 chats, as a whole process: what a user waits for, from
/// the launch to the last byte of the list.
///
/// Against the same listing done in this process (``KeepCore/ChatRepository/list()``, the
/// baseline), `keep chats --json` on an empty store (the start-up alone) and a process that
/// does nothing (`/bin/true`). The `keep` measured is the one built beside keep-bench
/// (`swift build -c release --product keep`); it runs with its data home in the bench's
/// directory, its output to `/dev/null`, and the session bus (if any) of the bench. It is
/// run once first and must list every chat, or the scenario is skipped, saying why.
struct StartupScenario: Scenario {
    let id = ScenarioID.startup

    static let keepListing = "keep chats --json"
    static let keepEmpty = "keep chats --json, no chats"
    static let inProcess = "in process: ChatRepository.list"
    static let nothing = "a process that does nothing"

    static func title(_ count: Int) -> String { "start-up: list \(Format.count(count)) chats" }

    func prepare(in directory: String, scale: Scale) async throws -> Preparation {
        let keep = Self.keepExecutable()
        guard FileManager.default.isExecutableFile(atPath: keep) else {
            return .skipped(
                "there is no keep executable at \(keep); build it first: "
                    + "swift build -c release --static-swift-stdlib --product keep")
        }
        let count = scale.chatCount
        let full = directory + "/full"
        let empty = directory + "/empty"
        try ChatFixtures.layDown(try await ChatFixtures.make(count), under: full + "/keep")
        try RawFile.makeDirectories(empty)
        try RawFile.makeDirectories(directory + "/home")
        RawFile.flushEverything()
        let launcher = Launcher(home: directory + "/home")

        let check = try launcher.run(keep, ["chats", "--json"], dataHome: full, captureIn: directory)
        guard check.status == 0, Self.listed(check.output) == count else {
            let said = check.error.split(separator: "\n").first.map { ": \($0)" } ?? ""
            return .skipped(
                "\(keep) chats --json exited \(check.status) without listing the \(count) chats\(said) "
                    + "(the keep command may not have landed in this build)")
        }
        let repository = ChatRepository(storage: try FileStore(root: full + "/keep"))
        let nothing = ["/bin/true", "/usr/bin/true"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let bound = scale.slowRepetitions
        let linking = Self.linking(keep)
        var contenders = [
            Contender(Self.keepListing, note: "a whole process; \(linking)", sampleLimit: bound) {
                try launcher.run(keep, ["chats", "--json"], dataHome: full)
            },
            Contender(Self.keepEmpty, note: "the start-up alone; \(linking)", sampleLimit: bound) {
                try launcher.run(keep, ["chats", "--json"], dataHome: empty)
            },
            Contender(Self.inProcess, note: "the same listing, no process", sampleLimit: bound) {
                _ = try await repository.list()
            },
        ]
        if let nothing {
            contenders.append(
                Contender(Self.nothing, note: nothing, sampleLimit: bound) {
                    try launcher.run(nothing, [], dataHome: empty)
                })
        }
        return .ready([
            Comparison(
                title: Self.title(count), metric: .latency, operation: "listing", baseline: Self.inProcess,
                contenders: contenders)
        ])
    }

    /// `keep` beside this executable: the one built with it.
    /// How the executable at `path` has the Swift runtime, in words: linked in (as
    /// `scripts/keep` builds it, `--static-swift-stdlib`) or loaded from shared libraries at
    /// each start. Read from its bytes: only a dynamic one names `libswiftCore.so`.
    static func linking(_ path: String) -> String {
        let name = Array("libswiftCore.so".utf8)
        guard let bytes = try? RawFile.read(path) else { return "its linking unknown" }
        let dynamic = bytes.withUnsafeBufferPointer { buffer in
            (0..<max(0, buffer.count - name.count)).contains { offset in
                buffer[offset] == name[0] && buffer[offset..<offset + name.count].elementsEqual(name)
            }
        }
        return dynamic
            ? "the Swift runtime loaded as shared libraries (a build without --static-swift-stdlib)"
            : "the Swift runtime linked in, as scripts/keep builds it"
    }

    static func keepExecutable() -> String {
        let me = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return me.deletingLastPathComponent().appendingPathComponent("keep").path
    }

    /// How many chats a `keep chats --json` output lists; nil when it is not such a list.
    private static func listed(_ output: Data) -> Int? {
        let object = try? JSONSerialization.jsonObject(with: output)
        if let list = object as? [Any] { return list.count }
        return ((object as? [String: Any])?["chats"] as? [Any])?.count
    }
}
