import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The peak resident memory of one whole process, from the kernel's own account of it
/// (`wait4`'s `ru_maxrss`), so no other child of the bench is counted.
///
/// Linux carries a process's peak across `exec` from the memory it exec'd from, and
/// `posix_spawn` execs from the parent's memory (as `fork` copies it): a child spawned by
/// the bench, which holds tens of thousands of fixture chats, would report the bench's
/// peak, not its own. So the bench starts itself first, fresh and small, as a launcher
/// (``launcherFlag``), which spawns the process and reports its peak.
enum PeakMemory {
    /// The first argument that makes `keep-bench` a launcher: `keep-bench --launch-measured
    /// RESULT EXECUTABLE ARGUMENTS...` runs EXECUTABLE with its own environment and writes
    /// `STATUS KIBIBYTES` to the file RESULT.
    static let launcherFlag = "--launch-measured"

    /// Runs `executable` with `arguments` and `environment` through a fresh launcher in
    /// `directory`, its output to `/dev/null`; answers its exit status and its own peak
    /// resident memory.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], in directory: String
    ) throws -> (status: Int32, kibibytes: Int) {
        let result = directory + "/peak-memory"
        let launcher = try spawnAndWait(
            launcherExecutable(), [launcherFlag, result, executable] + arguments, environment: environment)
        let text = (try? String(contentsOfFile: result, encoding: .utf8)) ?? ""
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard launcher.status == 0, fields.count == 2 else {
            throw BenchError(
                .setup, "launch",
                "the launcher exited \(launcher.status) and answered \"\(text)\", not a status and a peak")
        }
        return (Int32(fields[0]), fields[1])
    }

    /// `keep-bench` beside the running executable (itself, or a test runner built with it).
    static func launcherExecutable() -> String {
        let me = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return me.deletingLastPathComponent().appendingPathComponent("keep-bench").path
    }

    /// The launcher's work: runs `arguments` (an executable and its arguments) with this
    /// process's environment and writes its exit status and peak resident memory in KiB to
    /// the file `result`. Answers the launcher's own exit status.
    static func launch(result: String, _ arguments: [String]) -> Int32 {
        guard let executable = arguments.first else { return 2 }
        do {
            let run = try spawnAndWait(
                executable, Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
            try "\(run.status) \(run.kibibytes)\n".write(toFile: result, atomically: false, encoding: .utf8)
            return 0
        } catch {
            FileHandle.standardError.write(Data("keep-bench \(launcherFlag): \(error)\n".utf8))
            return 1
        }
    }

    /// Runs `executable` with `arguments` and `environment`, its output to `/dev/null`;
    /// answers its exit status and `wait4`'s peak resident memory of it.
    private static func spawnAndWait(
        _ executable: String, _ arguments: [String], environment: [String: String]
    ) throws -> (status: Int32, kibibytes: Int) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard started == 0 else {
            throw BenchError(.setup, "launch", "cannot start \(executable): \(String(cString: strerror(started)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw BenchError(.setup, "wait", "cannot wait for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, Int(usage.ru_maxrss))
    }
}
