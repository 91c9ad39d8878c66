import Foundation
import Synchronization

/// A `keep` process a test started: the built binary, with the environment the test gives
/// (and no other), its input and output through pipes or a pseudo-terminal.
///
/// Started with `posix_spawn`, with an empty signal mask and `SIGINT`, `SIGTERM`,
/// `SIGPIPE` and `SIGQUIT` reset to their default actions: a child must not inherit the
/// signals the test runner's threads block or ignore. Every descriptor the test makes is
/// close-on-exec, so a child never holds another test's pipe open.
final class KeepProcess: Sendable {
    let pid: pid_t
    /// Standard output (on a terminal: everything the terminal shows).
    let output: OutputBuffer
    /// Standard error; `nil` on a terminal, where it is part of ``output``.
    let errors: OutputBuffer?
    /// Where the test's input goes: the pipe to standard input, or the terminal.
    private let input: Mutex<Int32?>
    private let core = Mutex<Bool?>(nil)
    private let ended = Mutex<(status: ExitStatus?, waiting: [CheckedContinuation<ExitStatus, Never>])>((nil, []))

    /// The built `keep`, beside the test bundle in the build directory.
    static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // On Linux the bundle is an executable in the build directory; elsewhere it is a
        // directory whose executable sits a few levels down.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("keep").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("keep").path
    }

    /// Starts `keep arguments` with exactly `environment`; on a new pseudo-terminal, as its
    /// controlling terminal, when `terminal` is true. With a `launcher` (a program and its
    /// arguments, such as `nsenter --net=…`), that program is started with keep's path and
    /// arguments after its own, and is expected to exec keep.
    /// On a terminal, `columns` (when given) is its width from the start, as a terminal
    /// window would say (a new pseudo-terminal says 0 by 0: no width).
    init(
        _ arguments: [String], environment: [String: String], terminal: Bool = false, launcher: [String] = [],
        columns: Int? = nil
    )
        throws
    {
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }

        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals), "posix_spawnattr_setsigmask")
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        try check(posix_spawnattr_setsigdefault(&attributes, &defaults), "posix_spawnattr_setsigdefault")

        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        let outputEnd: Int32
        var errorEnd: Int32?
        let inputEnd: Int32
        if terminal {
            let (master, path) = try PseudoTerminal.open()
            parentEnds.append(master)
            if let columns { try Self.setSize(master, columns: columns) }
            // A new session first (so the child has no controlling terminal), then opening
            // the terminal's other end makes it the controlling one: Ctrl-C on it is SIGINT.
            flags |= Int32(PseudoTerminal.spawnSetSID)
            try check(posix_spawn_file_actions_addopen(&actions, 0, path, O_RDWR, 0), "addopen")
            try check(posix_spawn_file_actions_adddup2(&actions, 0, 1), "adddup2")
            try check(posix_spawn_file_actions_adddup2(&actions, 0, 2), "adddup2")
            // The reader closes its descriptor when the output ends, so input gets one of its
            // own: one descriptor closed twice could close another test's file.
            let input = fcntl(master, F_DUPFD_CLOEXEC, 0)
            guard input >= 0 else { throw SpawnFailure(what: "fcntl F_DUPFD_CLOEXEC", code: errno) }
            parentEnds.append(input)
            outputEnd = master
            inputEnd = input
        } else {
            let stdin = try Self.pipe()
            let stdout = try Self.pipe()
            let stderr = try Self.pipe()
            childEnds += [stdin.read, stdout.write, stderr.write]
            parentEnds += [stdin.write, stdout.read, stderr.read]
            try check(posix_spawn_file_actions_adddup2(&actions, stdin.read, 0), "adddup2")
            try check(posix_spawn_file_actions_adddup2(&actions, stdout.write, 1), "adddup2")
            try check(posix_spawn_file_actions_adddup2(&actions, stderr.write, 2), "adddup2")
            outputEnd = stdout.read
            errorEnd = stderr.read
            inputEnd = stdin.write
        }
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "posix_spawnattr_setflags")

        let argv = (launcher + [Self.binary] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, launcher.first ?? Self.binary, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            parentEnds.forEach { close($0) }
            throw SpawnFailure(what: "posix_spawn \(launcher.first ?? Self.binary)", code: spawned)
        }
        let pid = child
        self.pid = pid
        var idle: (@Sendable () -> Bool)?
        if terminal { idle = { @Sendable in KeepProcess.isWaitingForKeys(pid) } }
        output = OutputBuffer(reading: outputEnd, idle: idle)
        errors = errorEnd.map { OutputBuffer(reading: $0) }
        input = Mutex(inputEnd)
        Thread { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let exit = ExitStatus(waitStatus: status)
            // WCOREDUMP, which Swift does not import either.
            core.withLock { $0 = status & 0x7f != 0 && status & 0x80 != 0 }
            let waiting = ended.withLock { state in
                state.status = exit
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume(returning: exit) }
        }.start()
    }

    /// Sends `text` to the process's input.
    func write(_ text: String) {
        input.withLock { descriptor in
            guard let descriptor else { return }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    /// Whether the terminal echoes what is typed, as its settings say now (`nil` off a
    /// terminal). The two sides of a pseudo-terminal share one set of settings, so the
    /// test's side reads what the child set on its own.
    var terminalEchoes: Bool? {
        guard errors == nil else { return nil }
        return input.withLock { descriptor in
            var settings = termios()
            guard let descriptor, tcgetattr(descriptor, &settings) == 0 else { return nil }
            return settings.c_lflag & tcflag_t(ECHO) != 0
        }
    }

    /// Makes the terminal `columns` wide (24 rows), as a window resized: the kernel sends
    /// keep `SIGWINCH`. Throws off a terminal, or when the terminal refuses.
    func resize(columns: Int) throws {
        try input.withLock { descriptor in
            guard errors == nil, let descriptor else { throw SpawnFailure(what: "resize off a terminal", code: 0) }
            try Self.setSize(descriptor, columns: columns)
        }
    }

    private static func setSize(_ terminal: Int32, columns: Int) throws {
        var size = winsize(ws_row: 24, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(terminal, UInt(TIOCSWINSZ), &size) == 0 else {
            throw SpawnFailure(what: "ioctl TIOCSWINSZ", code: errno)
        }
    }

    /// Whether a thread of the process `pid` is blocked reading its standard input (its
    /// terminal): keep waits for keys, and prints nothing until it gets some. Read from
    /// `/proc/PID/task/*/syscall`, which names the call a blocked thread is in and its
    /// first argument, and says `running` of a thread that is not blocked (one a key
    /// has just woken included). False where that cannot be read.
    static func isWaitingForKeys(_ pid: pid_t) -> Bool {
        #if arch(x86_64)
            let readCall = "0"
        #elseif arch(arm64)
            let readCall = "63"
        #else
            return false
        #endif
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else {
            return false
        }
        return threads.contains { thread in
            guard let line = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/syscall", encoding: .utf8)
            else { return false }
            let fields = line.split(separator: " ")
            return fields.count > 1 && fields[0] == readCall && fields[1] == "0x0"
        }
    }

    /// Closes the input pipe: the process reads end of input. (On a terminal, send Ctrl-D.)
    func closeInput() {
        guard errors != nil else { return }
        input.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Whether the process dumped core as it died (the wait status says so), once it ended.
    var dumpedCore: Bool? { core.withLock { $0 } }

    /// Whether the process is still running.
    var isRunning: Bool { ended.withLock { $0.status == nil } }

    /// Waits for the process to end.
    func exit() async -> ExitStatus {
        await withCheckedContinuation { done in
            let known = ended.withLock { state -> ExitStatus? in
                if state.status == nil { state.waiting.append(done) }
                return state.status
            }
            if let known { done.resume(returning: known) }
        }
    }

    /// A one-way channel whose two ends are close-on-exec from the start (`dup2` onto 0–2
    /// clears the flag in the child). A socket pair, because it is made close-on-exec in one
    /// call (`SOCK_CLOEXEC`), which the Swift module offers for no pipe: an end open for
    /// even a moment without the flag could leak into a child another test starts, and
    /// keep its reader from ever seeing the end of the output.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw SpawnFailure(what: "socketpair", code: errno) }
        // One way only, as a pipe: the reader's end never writes, the writer's never reads.
        shutdown(ends[0], Int32(SHUT_WR))
        shutdown(ends[1], Int32(SHUT_RD))
        return (ends[0], ends[1])
    }

    deinit {
        if isRunning { kill(pid, SIGKILL) }
        input.withLock { descriptor in
            if let open = descriptor { close(open) }
        }
    }
}

/// A system call that failed while starting a child.
struct SpawnFailure: Error, CustomStringConvertible {
    let what: String
    let code: Int32
    var description: String { "\(what) failed: errno \(code)" }
}

private func check(_ result: Int32, _ what: String) throws {
    guard result == 0 else { throw SpawnFailure(what: what, code: result) }
}
