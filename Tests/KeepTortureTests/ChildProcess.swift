import Foundation
import KeepConformance

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `keep-torture` process a test started, its standard output on a pipe the test reads.
///
/// Started with `posix_spawn`, with an empty signal mask and every signal at its default
/// action: a test thread blocks some signals, and a child would inherit that. Its standard
/// input is `/dev/null` and its standard error a file the test names, so a failing child can
/// be read about. The child is killed and reaped when the value goes away, if the test did
/// not do it first.
final class ChildProcess {
    let pid: pid_t
    /// Every whole line the child has printed so far.
    private(set) var lines: [String] = []
    private let output: Int32
    /// The file its standard error goes to.
    private let errors: String
    private var pending: [UInt8] = []
    private var reaped = false

    /// Starts `executable` with `arguments`, its standard error going to `errors`.
    init(_ executable: String, _ arguments: [String], errors: String) throws {
        var ends: [Int32] = [-1, -1]
        // Close-on-exec from the start: no other child (other tests spawn theirs meanwhile)
        // may inherit the write end, or the end of output would never come. A socket pair is
        // the pipe Glibc's module offers that flag for.
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw Self.failure("socketpair", errno) }
        #else
            guard pipe(&ends) == 0 else { throw Self.failure("pipe", errno) }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        #endif
        output = ends[0]
        defer { close(ends[1]) }  // the child has its own copy: its death is the pipe's end

        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { throw Self.failure("file actions", errno) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawnattr_init(&attributes) == 0 else { throw Self.failure("attributes", errno) }
        defer { posix_spawnattr_destroy(&attributes) }
        // The pipe's write end becomes standard output (dup2 clears its close-on-exec).
        var result = posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        if result == 0 { result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        if result == 0 {
            result = posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        }
        guard result == 0 else { throw Self.failure("file actions", result) }
        // An empty mask and default dispositions, whatever this thread has.
        var empty = sigset_t()
        var all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        result = posix_spawnattr_setsigmask(&attributes, &empty)
        if result == 0 { result = posix_spawnattr_setsigdefault(&attributes, &all) }
        if result == 0 {
            result = posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }
        guard result == 0 else { throw Self.failure("spawn attributes", result) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            close(output)
            throw Self.failure("posix_spawn \(executable)", result)
        }
        pid = child
        self.errors = errors
    }

    deinit {
        if !reaped {
            _ = systemKill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        close(output)
    }

    /// Reads until the child prints `ready`; throws if it ends first or says nothing for
    /// `patience` seconds (a safety net against a hang, not a wait for timing).
    func waitUntilReady(patience: Int32 = 60) throws {
        while !lines.contains("ready") {
            switch try read(waitingUpTo: patience * 1000) {
            case .data: continue
            case .silence:
                throw ChildFailure(description: "the child said nothing for \(patience) s: \(lines.suffix(3))")
            case .end:
                let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                throw ChildFailure(
                    description: "the child ended before it was ready: \(lines.suffix(3)), \(said.prefix(6000))")
            }
        }
    }

    /// Reads whatever the child prints until `deadline` (CLOCK_MONOTONIC nanoseconds).
    func read(until deadline: UInt64) throws {
        while true {
            let now = Self.now()
            if now >= deadline { return }
            let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
            if try read(waitingUpTo: milliseconds) == .end { return }
        }
    }

    /// Reads until the child has printed `count` lines that satisfy `wanted`, or ends, or says
    /// nothing for `patience` seconds.
    func read(until count: Int, linesWhere wanted: (String) -> Bool, patience: Int32 = 60) throws {
        while lines.lazy.filter(wanted).count < count {
            if try read(waitingUpTo: patience * 1000) != .data { return }
        }
    }

    /// Kills the child with SIGKILL, reaps it, and reads the rest of what it printed.
    func kill() throws {
        guard systemKill(pid, SIGKILL) == 0 else { throw Self.failure("kill", errno) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Self.failure("waitpid", errno) }
        }
        reaped = true
        // The child is dead, so its end of the pipe is closed: the rest is already there.
        while true {
            switch try read(waitingUpTo: 60_000) {
            case .data: continue
            case .end: return
            case .silence: throw ChildFailure(description: "the output of a dead child never ended")
            }
        }
    }

    /// What one read found.
    private enum Reading { case data, silence, end }

    /// Reads what arrives within `milliseconds`.
    private func read(waitingUpTo milliseconds: Int32) throws -> Reading {
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready == -1 {
            if errno == EINTR { return .data }
            throw Self.failure("poll", errno)
        }
        if ready == 0 { return .silence }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { systemRead(output, $0.baseAddress, $0.count) }
        if count == -1 {
            if errno == EINTR { return .data }
            throw Self.failure("read", errno)
        }
        if count == 0 { return .end }
        pending += chunk[..<count]
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return .data
    }

    /// Nanoseconds on CLOCK_MONOTONIC, the clock the child stamps its lines with.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The built `keep-torture`: beside the test binary, or a few directories above it.
    static func tortureTool() throws -> String {
        var directory = Bundle(for: ChildProcess.self).bundleURL
        var looked: [String] = []
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("keep-torture").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            looked.append(directory.path)
            directory.deleteLastPathComponent()
        }
        throw ChildFailure(description: "keep-torture is not built; looked in \(looked)")
    }

    private static func failure(_ operation: String, _ code: Int32) -> ChildFailure {
        ChildFailure(description: "\(operation) failed: \(String(cString: strerror(code)))")
    }
}

// MARK: - The C calls whose names the methods above shadow

private func systemKill(_ pid: pid_t, _ signal: Int32) -> Int32 { kill(pid, signal) }
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}

/// A child process could not be started, read or stopped, or reported a failure.
struct ChildFailure: Error, CustomStringConvertible {
    let description: String
}

extension ChildProcess {
    /// One round of a torture: `writers` keep-torture processes of `mode` started on `path`
    /// (their standard error in `logs`), each waited for until ready, let run for a random
    /// 0–20 ms, and killed; answers them, with when the kills were reaped.
    static func killedRound(
        _ tool: String, mode: String, path: String, writers: Int, round: Int, seed: UInt64,
        logs: TemporaryDirectory, random: inout SeededGenerator
    ) throws -> (children: [ChildProcess], killedAt: UInt64) {
        let children = try (0..<writers).map { writer in
            try ChildProcess(
                tool, [mode, path, "\(writer)", "\(round)", "\(seed)"],
                errors: logs.appending("\(mode)-\(writer).log"))
        }
        for child in children { try child.waitUntilReady() }
        try children[0].read(until: ChildProcess.now() + UInt64.random(in: 0...20_000_000, using: &random))
        for child in children { try child.kill() }
        return (children, ChildProcess.now())
    }
}
