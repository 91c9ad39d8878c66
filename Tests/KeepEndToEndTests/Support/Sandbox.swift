import Foundation
import KeepConformance
import KeepTestSupport

/// One test's own world for `keep`: a temporary directory holding a home and a data home,
/// and the environment `keep` is started with: that, and nothing else of the test
/// process's (the test's own environment is never changed).
///
/// With `keyring`, the environment also names the session bus the test runs on, so `keep`
/// finds the private keyring `scripts/with-keyring` started; without it, `keep` finds no
/// keyring and falls back to process memory.
struct Sandbox {
    let directory: TemporaryDirectory
    let keyring: Bool
    /// Variables added to the environment, such as `OPENAI_API_KEY`.
    var extra: [String: String] = [:]
    /// What keep is started through (see ``KeepProcess``), such as `nsenter` into a test's
    /// own network namespace or `setpriv` to run it as another user; nothing by default.
    var launcher: [String] = []

    /// The session bus of the test process, when it is the private one `scripts/with-keyring`
    /// started (``KeepTestSupport/ScriptsKeyring``); never a desktop session's.
    static let busAddress = ScriptsKeyring.busAddress()

    init(keyring: Bool = false) throws {
        try self.init(keyring: keyring, directory: try TemporaryDirectory(prefix: "keep-e2e"))
    }

    /// A sandbox in `directory`, for a test that needs it somewhere particular.
    init(keyring: Bool = false, directory: TemporaryDirectory) throws {
        self.directory = directory
        self.keyring = keyring
        for path in [home, dataHome] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
    }

    var home: String { directory.appending("home") }
    var dataHome: String { directory.appending("data") }
    /// keep's data root in this sandbox.
    var root: String { (dataHome as NSString).appendingPathComponent("keep") }

    /// The path of the stored value `namespace`/`id` (an id of plain characters).
    func file(_ namespace: String, _ id: String) -> String {
        "\(root)/store/\(namespace)/\(id)"
    }

    var environment: [String: String] {
        var variables = ["HOME": home, "XDG_DATA_HOME": dataHome, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        if keyring, let address = Self.busAddress { variables["DBUS_SESSION_BUS_ADDRESS"] = address }
        return variables.merging(extra) { _, added in added }
    }

    /// Starts `keep arguments` in this sandbox; on a terminal `columns` wide when given.
    func start(_ arguments: [String], terminal: Bool = false, columns: Int? = nil) throws -> KeepProcess {
        try KeepProcess(arguments, environment: environment, terminal: terminal, launcher: launcher, columns: columns)
    }

    /// Runs `keep arguments` to the end on a terminal `columns` wide (standard output and
    /// error both on it), typing nothing; answers how it ended and what the terminal showed,
    /// its line ends as keep wrote them (the terminal's CR taken out).
    func runOnTerminal(_ arguments: String..., columns: Int = 80) async throws -> (status: ExitStatus, screen: String) {
        try await runOnTerminal(arguments, columns: columns)
    }

    func runOnTerminal(_ arguments: [String], columns: Int = 80) async throws -> (status: ExitStatus, screen: String) {
        let process = try start(arguments, terminal: true, columns: columns)
        let status = await process.exit()
        let screen = await process.output.waitForEnd()
        return (status, screen.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    /// Runs `keep arguments` to the end, with `input` on standard input.
    func run(_ arguments: String..., input: String = "") async throws -> Outcome {
        try await run(arguments, input: input)
    }

    func run(_ arguments: [String], input: String = "") async throws -> Outcome {
        let process = try start(arguments)
        process.write(input)
        process.closeInput()
        let status = await process.exit()
        return Outcome(
            status: status, stdout: await process.output.waitForEnd(),
            stderr: await process.errors?.waitForEnd() ?? "")
    }

    /// How a finished run went.
    struct Outcome: CustomStringConvertible {
        let status: ExitStatus
        let stdout: String
        let stderr: String

        var description: String { "\(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }

        /// The chat id `keep ask` printed on standard error (a line of its own, among any
        /// warnings), or `nil`.
        var chatId: String? {
            stderr.split(separator: "\n").first { $0.wholeMatch(of: /\d{8}-\d{6}-[0-9a-f]{6}/) != nil }.map(String.init)
        }
    }
}

// MARK: - Set-up shortcuts

extension Sandbox {
    /// Points the remote engine at `server` (engine, base URL, model), through `keep settings set`.
    func useRemote(_ server: LoopbackServer, model: String = "test-model") async throws {
        for (key, value) in [("engineId", "remote"), ("baseUrl", server.baseURL), ("model", model)] {
            let set = try await run("settings", "set", key, value)
            guard set.status == .exited(0) else { throw SandboxFailure("settings set \(key) failed:\n\(set)") }
        }
    }

    /// Asks `question` (a new chat unless `chat` is given) and answers the chat's id.
    func ask(_ question: String, chat: String? = nil) async throws -> String {
        let asked = try await run(["ask"] + (chat.map { ["--chat", $0] } ?? []) + [question])
        guard asked.status == .exited(0), let id = asked.chatId else { throw SandboxFailure("ask failed:\n\(asked)") }
        return id
    }

    /// The chat `id` as `keep chats show --json` prints it.
    func chat(_ id: String) async throws -> [String: Any] {
        let shown = try await run("chats", "show", id, "--json")
        guard shown.status == .exited(0),
            let chat = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        else { throw SandboxFailure("chats show failed:\n\(shown)") }
        return chat
    }

    /// The texts of the chat `id`'s messages, in order.
    func messages(_ id: String) async throws -> [String] {
        let messages = try await chat(id)["messages"] as? [[String: Any]] ?? []
        return messages.compactMap { $0["text"] as? String }
    }
}

/// A set-up step of a test that did not go as planned.
struct SandboxFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
